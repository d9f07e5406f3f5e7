"""Coreference on ordinary English: which head, given a pronoun, attends most to its antecedent among the
sentence's candidate nouns, on the project's own pronoun set (model/data/coref_realtext.jsonl, data card in
docs/coref-realtext-card.md), against first-noun and nearest-noun baselines, with Wilson 95% intervals
(Wilson 1927). Word attention as in model/tasks/coreference.py: word i of split_words(text) is word i + 1 there.
"""
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from model.data.word_tokenizer import split_words
from model.tasks.coreference import word_weights

DATA = Path(__file__).resolve().parents[1] / "data" / "coref_realtext.jsonl"
CUES = ("gender", "number", "structure", "winograd")
CUED = ("gender", "number", "structure")          # the cues a reader settles by agreement or syntax
SPLITS = ("dev", "test")
PRONOUNS = frozenset({"he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself",
                      "they", "them", "their", "theirs", "themselves"})
_KEYS = ("id", "split", "text", "pronoun", "antecedent", "candidates", "cue", "pair")


@dataclass(frozen=True)
class Sentence:
    """One labelled pronoun. pronoun, antecedent, candidates: word indices into split_words(text), candidates in
    order with the antecedent among them; pair: the id shared by a Winograd minimal pair, else None."""
    id: str
    split: str
    text: str
    pronoun: int
    antecedent: int
    candidates: tuple[int, ...]
    cue: str
    pair: str | None


def _problem(d: dict, words=split_words, pronouns=PRONOUNS) -> str | None:
    """What is wrong with one decoded line, or None. words(text) -> the words the indices count; pronouns: the
    words a pronoun index may point at."""
    if not isinstance(d, dict) or set(d) != set(_KEYS):
        return f"expected exactly the keys {', '.join(_KEYS)}"
    if d["split"] not in SPLITS or d["cue"] not in CUES:
        return f"split must be one of {SPLITS} and cue one of {CUES}, got {d['split']!r} and {d['cue']!r}"
    if not isinstance(d["text"], str) or not isinstance(d["candidates"], list):
        return "text must be a string and candidates a list of word indices"
    w = words(d["text"])
    idx = [d["pronoun"], d["antecedent"], *d["candidates"]]
    if not all(isinstance(i, int) and 0 <= i < len(w) for i in idx):
        return f"a word index is out of range: the text has {len(w)} words (indices 0..{len(w) - 1})"
    if w[d["pronoun"]] not in pronouns:
        return f"word {d['pronoun']} is {w[d['pronoun']]!r}, not a pronoun"
    if len(d["candidates"]) < 2 or d["candidates"] != sorted(set(d["candidates"])):
        return "candidates must be at least two distinct word indices in increasing order"
    if d["antecedent"] not in d["candidates"] or d["pronoun"] in d["candidates"]:
        return "the antecedent must be among the candidates and the pronoun must not"
    return None


def parse_line(line: str, where: str = "line", words=split_words, pronouns=PRONOUNS) -> Sentence:
    """One JSON line -> Sentence; ValueError naming `where` (e.g. 'coref_realtext.jsonl:12') and the problem."""
    try:
        d = json.loads(line)
    except json.JSONDecodeError as e:
        raise ValueError(f"{where}: not JSON ({e.msg})") from None
    problem = _problem(d, words, pronouns)
    if problem:
        raise ValueError(f"{where}: {problem}")
    return Sentence(d["id"], d["split"], d["text"], d["pronoun"], d["antecedent"], tuple(d["candidates"]),
                    d["cue"], d["pair"])


def load(path: Path = DATA, split: str | None = None, words=split_words, pronouns=PRONOUNS) -> list[Sentence]:
    """Every sentence of the set (or of one split), in file order; ValueError naming the first bad line."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    out = [parse_line(t, f"{Path(path).name}:{n}", words, pronouns) for n, t in enumerate(lines, 1) if t.strip()]
    return [s for s in out if split is None or s.split == split]


def first_noun(s: Sentence) -> int:
    """The first candidate's word index."""
    return s.candidates[0]


def nearest_noun(s: Sentence) -> int:
    """The candidate nearest before the pronoun; when none is before it, the nearest after it."""
    before = [c for c in s.candidates if c < s.pronoun]
    return max(before) if before else min(s.candidates)


def baseline_hits(sentences: list[Sentence], rule) -> np.ndarray:
    """(S,) bool: whether `rule` (first_noun or nearest_noun) picks each sentence's antecedent."""
    return np.array([rule(s) == s.antecedent for s in sentences], dtype=bool)


def resolves(words: np.ndarray, s: Sentence) -> np.ndarray:
    """words: (L, H, W, W) word attention of s.text read with [CLS] and [SEP] (W = len(split_words) + 2).
    Returns (L, H) bool: whether each head's most-attended candidate at the pronoun's row is the antecedent
    (argmax over the candidates only; a tie goes to the earlier candidate)."""
    row = words[:, :, s.pronoun + 1, [c + 1 for c in s.candidates]]           # (L, H, K); +1 for [CLS]
    return np.asarray(s.candidates)[row.argmax(-1)] == s.antecedent


def sentence_hits(model, tokenizer, sentences: list[Sentence], words=split_words) -> np.ndarray:
    """(L, H, S) bool: resolves() of every head on every sentence. ValueError when the tokenizer's words do not
    line up with words(text), the words the labels count (they would point at other words)."""
    hits = []
    for w, s in zip(word_weights(model, tokenizer, [s.text for s in sentences]), sentences):
        if w.shape[-1] != len(words(s.text)) + 2:
            raise ValueError(f"sentence {s.id}: the tokenizer reads {w.shape[-1] - 2} words, the labels "
                             f"{len(words(s.text))}: {s.text!r}")
        hits.append(resolves(w, s))
    return np.stack(hits, axis=-1)


def head_scores(model, tokenizer, sentences: list[Sentence], words=split_words) -> np.ndarray:
    """(L, H) float: each head's accuracy over the sentences (words as for sentence_hits)."""
    return sentence_hits(model, tokenizer, sentences, words).mean(-1)


def best_head(scores: np.ndarray) -> list[int]:
    """[layer, head] of the highest score in an (L, H) array (the first in layer-major order on a tie)."""
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return [int(layer), int(head)]


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials (95% for the default z): (lo, hi)."""
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n > 0, got k={k}, n={n}")
    p, z2 = k / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def pair_accuracy(hits: np.ndarray, sentences: list[Sentence]) -> float:
    """Share of minimal pairs whose every sentence is right. hits: (S,) bool in the order of `sentences`."""
    ok: dict[str, bool] = {}
    for h, s in zip(hits, sentences):
        if s.pair is not None:
            ok[s.pair] = ok.get(s.pair, True) and bool(h)
    return float(np.mean(list(ok.values()))) if ok else float("nan")


def _mean(x: np.ndarray) -> float:
    """Mean of a bool array; nan when it is empty (a cue absent from a split)."""
    return float(x.mean()) if x.size else float("nan")


def _test_figures(hits: np.ndarray, sentences: list[Sentence]) -> dict:
    """Test-split accuracy of one head (hits: (S,) bool) and of the baselines, overall, per cue and cued."""
    test = np.array([s.split == "test" for s in sentences])
    cue = np.array([s.cue for s in sentences])
    rules = {"first_noun": baseline_hits(sentences, first_noun),
             "nearest_noun": baseline_hits(sentences, nearest_noun)}
    groups = {"": test, **{f"_{c}": test & (cue == c) for c in CUES}, "_cued": test & np.isin(cue, CUED)}
    out = {}
    for suffix, sel in groups.items():
        out[f"coref_acc_realtext_test{suffix}"] = _mean(hits[sel])
        for name, b in rules.items():
            out[f"coref_baseline_{name}_realtext_test{suffix}"] = _mean(b[sel])
    k, n = int(hits[test].sum()), int(test.sum())
    out["coref_acc_realtext_test_ci95"] = [round(x, 4) for x in wilson(k, n)]
    winograd = [s for s in sentences if s.split == "test" and s.cue == "winograd"]
    out["coref_pair_acc_realtext_test_winograd"] = pair_accuracy(hits[test & (cue == "winograd")], winograd)
    return out


def report(model, tokenizer, head: list[int] | None = None, sentences: list[Sentence] | None = None,
           words=split_words) -> dict:
    """Figures of the set for one model: the head (chosen on dev unless given), its dev and test accuracy, a
    95% Wilson interval on test, accuracy and both baselines on test per cue, for the cued cues together and
    for Winograd pairs. Accuracies are floats rounded to 4 decimals; the head is [layer, head]. sentences: another
    set (default: this one) whose indices count words(text) (as for sentence_hits)."""
    sentences = load() if sentences is None else sentences
    hits = sentence_hits(model, tokenizer, sentences, words)                  # (L, H, S)
    dev = np.array([s.split == "dev" for s in sentences])
    head = best_head(hits[..., dev].mean(-1)) if head is None else [int(head[0]), int(head[1])]
    chosen = hits[head[0], head[1]]                                           # (S,)
    out = {"coref_realtext_head": head, "coref_realtext_n_dev": int(dev.sum()),
           "coref_realtext_n_test": int((~dev).sum()), "coref_acc_realtext_dev": _mean(chosen[dev]),
           **_test_figures(chosen, sentences)}
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}
