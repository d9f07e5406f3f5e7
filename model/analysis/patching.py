"""Activation patching on a minimal pair (Meng et al. 2022; Heimersheim & Nanda 2024): run A ("…too big") and run B
("…too small"), copy one residual state of A (layer, position) into B, and see how the coreference head's weight
from the pronoun moves and whether the model's answer flips; then the change of the pronoun's scores between A and B
split exactly into a query side, a key side and their interaction, and each side into the earlier writers of the
residual stream (model.analysis.direct_path).

Alignment: texts with the same number of pieces are patched piece by piece. Otherwise whole words are aligned: the
words both texts share at the start and at the end, and in between word by word when both have as many words there;
an aligned word is patched piece by piece where it has as many pieces in both. Other positions are not patched
(NaN in the map). Weights are word-level as on the coreference page (to a word: summed over its pieces; from the
pronoun: averaged over its pieces, Clark et al. 2019), and the answer is read as model.tasks.coreference.resolve
reads it: the head's largest weight, among the other content words when the model's meta says "content".
"""
from dataclasses import dataclass

import numpy as np
import torch

from model.analysis.direct_path import head_inputs
from model.data import text_input
from model.data.course_world import PRONOUNS
from model.engine.capture import capturing
from model.engine.errors import InputError
from model.engine.patching import Patch, patching
from model.tasks.coreference import content_words

BATCH = 64                 # patched runs per forward


class PairError(InputError):
    """A pair that cannot be patched. reason: which rule it breaks ("too_long", "unaligned", "no_pronoun",
    "pronoun_place", "answer_unaligned"); details: the numbers and words of the message, for a page's own words."""

    def __init__(self, reason: str, message: str, **details):
        super().__init__(message)
        self.reason, self.details = reason, details


def encode_pair(model, tokenizer, text_a: str, text_b: str):
    """Both texts read as the coreference page reads them ([CLS] text [SEP]); PairError when one is too long."""
    encs = [text_input.encode(tokenizer, t, "cls_sep") for t in (text_a, text_b)]
    for label, e in zip("AB", encs):
        if len(e.ids) > model.config.max_len:
            raise PairError("too_long", f"text {label} has {len(e.ids)} pieces; the model reads at most "
                            f"{model.config.max_len}", text=label, n=len(e.ids), most=model.config.max_len)
    return encs


def align(a: text_input.TextEncoding, b: text_input.TextEncoding) -> np.ndarray:
    """(T_B,) int: the piece of A whose state each piece of B takes, −1 where none (see the module's docstring).
    PairError (a ValueError) when no word but [CLS] and [SEP] can be aligned."""
    if len(a.ids) == len(b.ids):
        return np.arange(len(b.ids))
    wa, wb = a.word_texts, b.word_texts
    pairs, n = [], min(len(wa), len(wb))
    start = 0
    while start < n and wa[start] == wb[start]:
        start += 1
    end = 0
    while end < n - start and wa[-1 - end] == wb[-1 - end]:
        end += 1
    pairs += [(i, i) for i in range(start)]
    if len(wa) == len(wb):
        pairs += [(i, i) for i in range(start, len(wa) - end)]
    pairs += [(len(wa) - 1 - j, len(wb) - 1 - j) for j in range(end)]
    source = np.full(len(b.ids), -1)
    for i, j in pairs:
        if len(a.words[i]) == len(b.words[j]):
            source[list(b.words[j])] = a.words[i]
    special = {p for w, t in zip(b.words, wb) if t in ("[CLS]", "[SEP]") for p in w}
    if all(source[p] < 0 or p in special for p in range(len(b.ids))):
        raise PairError("unaligned", f"the two texts cannot be aligned: they have {len(a.ids)} and {len(b.ids)} pieces "
                        f"and {len(wa)} and {len(wb)} words, and no word matches in place with as many pieces; write "
                        f"two versions of one sentence (same number of pieces, or the same words around the change)",
                        pieces_a=len(a.ids), pieces_b=len(b.ids), words_a=len(wa), words_b=len(wb))
    return source


def word_source(a: text_input.TextEncoding, b: text_input.TextEncoding, source: np.ndarray) -> np.ndarray:
    """(W_B,) int: the word of A each word of B stands for (all its pieces taken from that word's pieces), −1 where
    none."""
    word_of = {p: i for i, w in enumerate(a.words) for p in w}
    out = np.full(len(b.words), -1)
    for j, w in enumerate(b.words):
        src = [int(source[p]) for p in w]
        if min(src) >= 0 and {word_of[p] for p in src} == {word_of[src[0]]} and len(a.words[word_of[src[0]]]) == len(w):
            out[j] = word_of[src[0]]
    return out


def answer(row: np.ndarray, word_texts, pronoun: int, candidates: str) -> int:
    """The word the head's row (W,) points the pronoun at, as model.tasks.coreference.resolve reads it."""
    if candidates != "content":
        return int(np.argmax(row))
    allowed = content_words(word_texts)
    allowed[pronoun] = False
    return int(np.argmax(np.where(allowed, row, -1.0))) if allowed.any() else int(np.argmax(row))


def _first_pronoun(words) -> int | None:
    return next((i for i, t in enumerate(words) if t.lower() in PRONOUNS), None)


@dataclass(frozen=True)
class Pair:
    """A minimal pair read and aligned. source: (T_B,) A's piece for each piece of B (−1 none); words: (W_B,) A's word
    for each word of B; pronoun, pronoun_a: the first pronoun (a word index) in B and in A; candidates: B's content
    words before the pronoun (word indices)."""
    a: text_input.TextEncoding
    b: text_input.TextEncoding
    source: np.ndarray
    words: np.ndarray
    pronoun: int
    pronoun_a: int
    candidates: tuple[int, ...]


def read_pair(model, tokenizer, text_a: str, text_b: str) -> Pair:
    """Encode and align; PairError (a ValueError) with what to change when the pair cannot be patched."""
    a, b = encode_pair(model, tokenizer, text_a, text_b)
    source = align(a, b)
    words = word_source(a, b, source)
    pa, pb = _first_pronoun(a.word_texts), _first_pronoun(b.word_texts)
    if pa is None or pb is None:
        raise PairError("no_pronoun", "both texts need a pronoun (it, they, their, …)")
    if words[pb] != pa:
        raise PairError("pronoun_place", f"the first pronoun must stand at the same place in both texts: "
                        f"“{a.word_texts[pa]}” is word {pa} of A, “{b.word_texts[pb]}” word {pb} of B",
                        word_a=a.word_texts[pa], index_a=pa, word_b=b.word_texts[pb], index_b=pb)
    content = content_words(b.word_texts)
    return Pair(a, b, source, words, pb, pa, tuple(int(j) for j in range(pb) if content[j]))


def _member(enc: text_input.TextEncoding) -> np.ndarray:
    """(T, W) 1 where piece t belongs to word w."""
    m = np.zeros((len(enc.ids), len(enc.words)))
    for j, w in enumerate(enc.words):
        m[list(w), j] = 1.0
    return m


def _rows(weights: torch.Tensor, head: int, pieces, member: np.ndarray) -> np.ndarray:
    """Word-level rows of the pronoun: weights (B, H, T, T) -> (B, W) float64."""
    w = weights[:, head][:, list(pieces)].double().mean(1).cpu().numpy()          # (B, T) averaged over its pieces
    return w @ member                                                              # summed over each word's pieces


@dataclass(frozen=True)
class PatchMap:
    """The residual stream of A patched into B at each (layer, position): the stream entering layer l, l = 0 …
    n_layers − 1, at piece t of B. rows: (L, T_B, W_B) the coreference head's word-level row of the pronoun in each
    patched run (NaN where position t is not aligned; a layer after the head's equals B's row: the head reads the
    stream entering its own layer, so later states cannot move it); answers: (L, T_B) the word it answers (−1 where
    not aligned); row_a (W_A,), row_b (W_B,): the originals; answer_a: A's answer as a word of B (the right
    antecedent), answer_a_own: as a word of A; answer_b: B's answer."""
    pair: Pair
    head: tuple[int, int]
    candidates_rule: str
    rows: np.ndarray
    answers: np.ndarray
    row_a: np.ndarray
    row_b: np.ndarray
    answer_a: int
    answer_a_own: int
    answer_b: int

    def effect_on(self, word: int) -> np.ndarray:
        """(L, T_B): the patched weight on B's word `word` minus B's own (NaN where not aligned)."""
        return self.rows[..., word] - self.row_b[word]

    @property
    def effect(self) -> np.ndarray:
        """(L, T_B): the change in the head's weight on the right antecedent (A's answer)."""
        return self.effect_on(self.answer_a)

    @property
    def flips(self) -> np.ndarray:
        """(L, T_B) bool: the patched run answers another word than B."""
        return (self.answers >= 0) & (self.answers != self.answer_b)


@torch.inference_mode()
def _capture(model, ids: torch.Tensor, edits: dict | None = None):
    with patching(edits or {}), capturing():
        return model.encode(ids)


@torch.inference_mode()
def patch_map(model, tokenizer, text_a: str, text_b: str, head: tuple[int, int], candidates: str = "all",
              progress=None, batch: int = BATCH) -> PatchMap:
    """Patch every aligned residual state of A (layer ≤ the head's, every aligned position) into B, one state per
    batch row, `batch` rows per forward. progress: optional callable(done, total) after each forward."""
    pair = read_pair(model, tokenizer, text_a, text_b)
    layer, h = head
    L = model.config.n_layers
    device = next(model.parameters()).device
    a_ids = torch.tensor([pair.a.ids], device=device)
    b_ids = torch.tensor([pair.b.ids], device=device)
    out_a = _capture(model, a_ids)
    member_a, member_b = _member(pair.a), _member(pair.b)
    row_a = _rows(out_a.intermediates[layer].weights, h, pair.a.words[pair.pronoun_a], member_a)[0]
    own = answer(row_a, pair.a.word_texts, pair.pronoun_a, candidates)
    right = np.flatnonzero(pair.words == own)
    if not len(right):
        raise PairError("answer_unaligned", f"run A's answer “{pair.a.word_texts[own]}” has no counterpart in B "
                        f"(word {own} of A is not aligned with a word of B)", word=pair.a.word_texts[own], index=own)
    T = len(pair.b.ids)
    src = torch.as_tensor(np.maximum(pair.source, 0), device=device)
    states = [s[:, src] for s in out_a.hidden[:layer + 1]]                          # each (1, T_B, C) in B's order
    cells = [(i, t) for i in range(layer + 1) for t in range(T) if pair.source[t] >= 0]   # (layer, position)
    pron = pair.b.words[pair.pronoun]
    rows = np.full((L, T, len(pair.b.words)), np.nan)
    row_b = None
    for start in range(0, len(cells), batch):
        chunk = cells[start:start + batch]
        n = len(chunk) + 1                                                           # row 0: B unpatched
        where = torch.zeros(layer + 1, n, T, dtype=torch.bool, device=device)
        for r, (i, t) in enumerate(chunk, 1):
            where[i, r, t] = True
        edits = {model.encoder: {i: Patch(states[i], where[i]) for i in range(layer + 1) if where[i].any()}}
        got = _rows(_capture(model, b_ids.expand(n, T), edits).intermediates[layer].weights, h, pron, member_b)
        if row_b is None:
            row_b = got[0]
        for r, (i, t) in enumerate(chunk, 1):
            rows[i, t] = got[r]
        if progress is not None:
            progress(min(start + batch, len(cells)), len(cells))
    if row_b is None:                                                                # nothing aligned to patch
        row_b = _rows(_capture(model, b_ids).intermediates[layer].weights, h, pron, member_b)[0]
    aligned = pair.source >= 0
    rows[layer + 1:, aligned] = row_b                                                # later states cannot move it
    answers = np.full((L, T), -1)
    for i in range(L):
        for t in np.flatnonzero(aligned):
            answers[i, t] = answer(rows[i, t], pair.b.word_texts, pair.pronoun, candidates)
    return PatchMap(pair, (layer, h), candidates, rows, answers, row_a, row_b, int(right[0]), own,
                    answer(row_b, pair.b.word_texts, pair.pronoun, candidates))


@dataclass(frozen=True)
class ScoreSplit:
    """The pronoun's row in head `head`, word-level scores s = q̄·k̄/√d_k (q̄ the mean query of the pronoun's pieces,
    k̄ the mean key of a candidate's pieces: the mean of the piece scores), to each candidate (B's word indices;
    A's counterpart words in A). score_a, score_b, query_side, key_side, interaction: (K,), with
    score_a − score_b = query_side + key_side + interaction exactly:
        query_side  = (q̄_A − q̄_B)·k̄_B / √d_k      the pronoun's query changed, the keys held at B's
        key_side    = q̄_B·(k̄_A − k̄_B) / √d_k      the keys changed, the query held at B's
        interaction = (q̄_A − q̄_B)·(k̄_A − k̄_B) / √d_k
    sources: (S,) the writers of the residual stream (model.analysis.direct_path.StreamParts labels), kinds their
    kinds; query_parts, key_parts: (S, K) each writer's share of query_side and key_side (they sum to them exactly,
    each LayerNorm's scale frozen at its run's value). A bias a model adds to the scores is not part of q·k; neither
    model with a coreference head has one."""
    head: tuple[int, int]
    candidates: tuple[int, ...]
    score_a: np.ndarray
    score_b: np.ndarray
    query_side: np.ndarray
    key_side: np.ndarray
    interaction: np.ndarray
    sources: tuple[str, ...]
    kinds: tuple[str, ...]
    query_parts: np.ndarray
    key_parts: np.ndarray

    @property
    def change(self) -> np.ndarray:
        return self.score_a - self.score_b


def score_split(model, pair: Pair, head: tuple[int, int], candidates: tuple[int, ...] | None = None) -> ScoreSplit:
    """The split for B's words `candidates` (default: the pair's candidates that have a counterpart in A)."""
    layer, h = head
    cands = tuple(j for j in (pair.candidates if candidates is None else candidates) if pair.words[j] >= 0)
    pa, pb = head_inputs(model, pair.a.ids, layer, h), head_inputs(model, pair.b.ids, layer, h)
    scale = 1.0 / np.sqrt(pa.q.shape[-1])

    def mean_over(x, pieces):                                                       # (S, T, D) -> (S, D)
        return x[:, list(pieces)].mean(1)

    qa = mean_over(pa.q, pair.a.words[pair.pronoun_a])                                # (S, D)
    qb = mean_over(pb.q, pair.b.words[pair.pronoun])
    ka = np.stack([mean_over(pa.k, pair.a.words[pair.words[j]]) for j in cands], 1)  # (S, K, D)
    kb = np.stack([mean_over(pb.k, pair.b.words[j]) for j in cands], 1)
    qa_t, qb_t, ka_t, kb_t = qa.sum(0), qb.sum(0), ka.sum(0), kb.sum(0)
    dq, dk = qa - qb, ka - kb                                                        # parts of the changes
    return ScoreSplit(head, cands, ka_t @ qa_t * scale, kb_t @ qb_t * scale,
                      kb_t @ dq.sum(0) * scale, dk.sum(0) @ qb_t * scale, dk.sum(0) @ dq.sum(0) * scale,
                      pa.labels, pa.kinds, np.einsum("sd,kd->sk", dq, kb_t) * scale,
                      np.einsum("skd,d->sk", dk, qb_t) * scale)
