"""The lessons' data: batches drawn from (seed, step) alone, so a resumed run sees the batches it would have seen,
and fixed probe inputs on which every snapshot's attention is taken and scored.

Symbols are short syllables ("ba", "ko", ...) read by a word tokenizer (model/data/symbol_streams.py draws them),
so a trained model also reads typed text in the explorer ("ba ko mi ba ko"). Four tasks:

- "induction": random symbols in which spans are repeated at random offsets (next-token prediction); the second
  copy of a span can be predicted only by finding the earlier copy (Olsson et al. 2022). A weak skip-bigram rule
  (a token sometimes fixes the token two places later) makes looking one token back useful early.
- "previous": the skip-bigram rule alone: the token two places back fixes the next one, so the model must look at
  the previous token (a positional head: where it looks depends on position, not content).
- "pronoun": course-world sentences (model/data/course_world.py, its hand-picked nouns); from the pronoun, predict
  the noun it refers to (a cloze), read both ways as BERT reads.
- "sort": a list of distinct numbers, [SEP], then the same numbers sorted (the loss only on the sorted part).
"""
from dataclasses import dataclass, replace

import numpy as np
import torch

from model.data.symbol_streams import LOW, repeat_spans, skip_rule, stream
from model.data.word_tokenizer import BOS, SEP, SPECIALS, WordTokenizer, split_words

IGNORE = -100                            # a target that gives no loss


@dataclass(frozen=True)
class Probes:
    """Fixed inputs every snapshot reads. ids: (n, T) int64, row 0 drawn in the timelapse; tokens: row 0 as text;
    span, start: the repeated span of the induction rows (positions start..start+span-1 repeated right after),
    0 when there is none; targets: (n, T) int64, the key each query should find for the lesson's own score
    (-1: none); answers: (n, T) int64, the token each position should predict (IGNORE: not scored)."""
    ids: np.ndarray
    tokens: tuple[str, ...]
    start: int
    span: int
    targets: np.ndarray
    answers: np.ndarray


def numbers(n: int) -> WordTokenizer:
    """The special tokens, then the numbers 0..n-1 as words."""
    return WordTokenizer(list(SPECIALS) + [str(i) for i in range(n)])


def _rng(seed: int, step: int) -> np.random.Generator:
    return np.random.default_rng([seed, step])


def _as_batch(ids: np.ndarray, answers: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.from_numpy(ids), torch.from_numpy(answers)


# ---- induction and previous-token: next-token prediction on symbol streams -----------------------------------
def next_token_batch(task: dict, seed: int, step: int, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
    """inputs (B, T), targets (B, T): position t predicts token t + 1."""
    rng = _rng(seed, step)
    x = stream(rng, batch, task["length"] + 1, task["vocab"], task["skip"])
    if task["copies"]:
        repeat_spans(rng, x, task["spans"], task["copies"])
    return _as_batch(x[:, :-1].copy(), x[:, 1:].copy())


def induction_probes(task: dict, tok: WordTokenizer, n: int = 8) -> Probes:
    """n rows of [BOS], a span of distinct random symbols, the same span again (as model.analysis.head_scores
    scores induction); answers: the second copy's tokens, each predicted from the one before it."""
    span = task["probe_span"]
    rng = np.random.default_rng(1234)
    first = np.stack([rng.choice(np.arange(LOW, task["vocab"]), size=span, replace=False) for _ in range(n)])
    ids = np.concatenate([np.full((n, 1), BOS), first, first], axis=1).astype(np.int64)     # (n, 1 + 2·span)
    T = ids.shape[1]
    targets, answers = np.full((n, T), -1), np.full((n, T), IGNORE)
    q = np.arange(1 + span, T - 1)                 # second copy's queries that have a next token
    targets[:, q] = q - span + 1
    answers[:, q] = ids[:, q + 1]
    return Probes(ids, tuple(tok.vocab[i] for i in ids[0]), 1, span, targets, answers)


def previous_probes(task: dict, tok: WordTokenizer, n: int = 8) -> Probes:
    """n rows of the skip-bigram stream; answers where the rule fixed the next token (checked on the row)."""
    ids = stream(np.random.default_rng(1234), n, min(task["length"], task["probe_length"]), task["vocab"],
                 task["skip"]).astype(np.int64)
    T = ids.shape[1]
    rule = skip_rule(task["vocab"])
    targets, answers = np.full((n, T), -1), np.full((n, T), IGNORE)
    q = np.arange(2, T - 1)
    targets[:, q] = q - 1
    follows = ids[:, q + 1] == rule[ids[:, q - 1]]
    answers[:, q] = np.where(follows, ids[:, q + 1], IGNORE)
    return Probes(ids, tuple(tok.vocab[i] for i in ids[0]), 0, 0, targets, answers)


# ---- sorting -------------------------------------------------------------------------------------------------
def sort_rows(rng, batch: int, size: int, count: int) -> np.ndarray:
    """(batch, 2·count + 2): [BOS], count distinct numbers below `size`, [SEP], the same sorted."""
    nums = np.stack([rng.choice(size, count, replace=False) for _ in range(batch)]) + LOW
    return np.concatenate([np.full((batch, 1), BOS), nums, np.full((batch, 1), SEP), np.sort(nums, axis=1)],
                          axis=1).astype(np.int64)


def sort_batch(task: dict, seed: int, step: int, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
    """inputs (B, T), targets: the sorted numbers, each predicted from the position before it."""
    x = sort_rows(_rng(seed, step), batch, task["size"], task["count"])
    answers = x[:, 1:].copy()
    answers[:, :task["count"] + 1] = IGNORE        # the list is random and [SEP] always there: no loss
    return _as_batch(x[:, :-1].copy(), answers)


def sort_probes(task: dict, tok: WordTokenizer, n: int = 8) -> Probes:
    """n lists; targets: from [SEP] and each sorted number, the input position of the next sorted number."""
    ids = sort_rows(np.random.default_rng(1234), n, task["size"], task["count"])[:, :-1]
    k = task["count"]
    targets, answers = np.full(ids.shape, -1), np.full(ids.shape, IGNORE)
    for r in range(n):
        where = {int(v): i for i, v in enumerate(ids[r, 1:k + 1], start=1)}
        sorted_ = sorted(where)
        for j, q in enumerate(range(k + 1, 2 * k + 1)):   # [SEP] and the sorted numbers but the last
            targets[r, q] = where[sorted_[j]]
            answers[r, q] = sorted_[j]
    return Probes(ids, tuple(tok.vocab[i] for i in ids[0]), 0, 0, targets, answers)


# ---- pronouns (the course world) ------------------------------------------------------------------------------
def pronoun_tokenizer() -> WordTokenizer:
    from model.data import course_world as world  # builds its WordNet lexicon on import (seconds): only here
    return world.tokenizer()


def pronoun_sentences(frames: str, n: int, seed: int, distractor: bool = True) -> list:
    """n schema sentences (course_world.Sample) with the hand-picked nouns; frames "train" (the training frames) or
    "heldout". With `distractor`, each follows "we saw the {x} and the {y} ." naming two other nouns of the same
    classes, so adding up every noun cannot give the answer: a head must point at the one in the pronoun's
    sentence."""
    from model.data import course_world as world
    rng = np.random.default_rng(seed)
    out = []
    names = sorted(world.SCHEMAS)
    for _ in range(n):
        name = names[rng.integers(len(names))]
        held = world.HELDOUT_FRAMES[name]
        pool = [f for f in range(len(world.SCHEMAS[name].frames)) if (f in held) == (frames == "heldout")]
        a_nouns, b_nouns = world.CORE_NOUNS[name]
        a, x = (str(w) for w in rng.choice(a_nouns, 2, replace=False))
        b, y = (str(w) for w in rng.choice(b_nouns, 2, replace=False))
        sample = world.schema_sentence(name, int(rng.choice(pool)), a, b, str(rng.choice(["a", "b"])),
                                       int(rng.integers(10)))
        if distractor:
            first = f"we saw the {x} and the {y} ." if rng.random() < 0.5 else f"we saw the {y} and the {x} ."
            shift = len(split_words(first))
            sample = replace(sample, text=f"{first} {sample.text}", refs=tuple(
                replace(r, pronoun_index=r.pronoun_index + shift, antecedent_index=r.antecedent_index + shift)
                for r in sample.refs))
        out.append(sample)
    return out


def pronoun_rows(tok: WordTokenizer, samples) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ids (n, T) [CLS] words [SEP] padded; targets: the antecedent's position at the pronoun (-1 elsewhere);
    answers: the antecedent's id at the pronoun (IGNORE elsewhere)."""
    encs = [tok.encode(s.text, add_cls_sep=True).ids for s in samples]
    T = max(map(len, encs))
    ids = np.zeros((len(encs), T), np.int64)           # [PAD] is id 0
    targets, answers = np.full(ids.shape, -1), np.full(ids.shape, IGNORE)
    for i, (e, s) in enumerate(zip(encs, samples)):
        ids[i, :len(e)] = e
        for r in s.refs:
            targets[i, r.pronoun_index + 1] = r.antecedent_index + 1
            answers[i, r.pronoun_index + 1] = e[r.antecedent_index + 1]
    return ids, targets, answers


def pronoun_batch(task: dict, seed: int, step: int, batch: int, tok: WordTokenizer):
    ids, _, answers = pronoun_rows(tok, pronoun_sentences("train", batch, seed * 100_003 + step, **task))
    return _as_batch(ids, answers)


def pronoun_probes(task: dict, tok: WordTokenizer, n: int = 64) -> Probes:
    """Held-out frames (sentence shapes never trained on); row 0 the textbook's kind of sentence."""
    samples = pronoun_sentences("heldout", n, 1234, **task)
    ids, targets, answers = pronoun_rows(tok, samples)
    length = len(split_words(samples[0].text)) + 2
    return Probes(ids, tuple(tok.vocab[i] for i in ids[0, :length]), 0, 0, targets, answers)
