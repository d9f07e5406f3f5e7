"""Count-based baselines for the general text models, on the same ids and the same positions as their own measures:

- a decoder's held-out perplexity beside that of interpolated modified Kneser–Ney 3- and 4-gram models
  (model/data/kneser_ney.py) counted on the same training documents, as [BOS] doc [EOS], overall and per source;
- a masked LM's accuracy beside the two-sided Kneser–Ney trigram fill at the same masked positions: each
  candidate w is scored by P(w | l2 l1) · P(r1 | l1 w) · P(r2 | w r1), with l2 l1 the two ids left of the slot and
  r1 r2 the two on its right. [CLS] and [SEP] are read as [BOS] and [EOS]: after a [SEP] a new document starts,
  and after a [SEP] on the right nothing more is scored. A masked neighbour is unknown: the factors that need it
  are dropped (a context stops at it).
"""
from collections.abc import Callable

import numpy as np

from model.data import kneser_ney
from model.data.bpe import BOS, CLS, EOS, MASK, SEP, SPECIALS

ORDERS = (3, 4)


def with_bos_eos(ids: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Packed documents (ids, offsets as in real_text_batches.Encoded) with [BOS] before and [EOS] after each."""
    ids, offsets = np.asarray(ids, np.int64), np.asarray(offsets, np.int64)
    n = len(offsets) - 1
    out_offsets = offsets + 2 * np.arange(n + 1)
    out = np.empty(len(ids) + 2 * n, np.int64)
    doc_of = np.repeat(np.arange(n), np.diff(offsets))
    out[np.arange(len(ids)) + 2 * doc_of + 1] = ids
    out[out_offsets[:-1]] = BOS
    out[out_offsets[1:] - 1] = EOS
    return out, out_offsets


def fitted(ids: np.ndarray, offsets: np.ndarray, order: int, vocab_size: int) -> kneser_ney.KneserNey:
    """The Kneser–Ney model of `order` counted on the training documents [BOS] doc [EOS] (cached on disk)."""
    return kneser_ney.cached(*with_bos_eos(ids, offsets), order, vocab_size, BOS)


def perplexity_keys(ids: np.ndarray, offsets: np.ndarray, vocab_size: int, seqs: list[list[int]],
                    sources: list[str], model_ppl: float,
                    model_perplexity: Callable[[list[list[int]]], float]) -> dict:
    """KN3 and KN4 perplexity of the held-out sample seqs ([BOS] doc [EOS], every id after the first) with the
    models counted on the training documents (ids, offsets), the model's ratio to KN4 (model_ppl: the model's
    perplexity on seqs), and per source (sources[i] is the source of seqs[i]) the model's perplexity, KN4's and
    their ratio. model_perplexity scores a list of sequences with the model."""
    models = {n: fitted(ids, offsets, n, vocab_size) for n in ORDERS}
    out = {f"kn{n}_perplexity_heldout_real": round(m.perplexity(seqs), 3) for n, m in models.items()}
    out["perplexity_ratio_vs_kn4"] = round(model_ppl / models[4].perplexity(seqs), 4)
    mine, kn4 = {}, {}
    for source in sorted(set(sources)):
        picked = [s for s, src in zip(seqs, sources) if src == source]
        mine[source], kn4[source] = model_perplexity(picked), models[4].perplexity(picked)
    out["perplexity_by_source"] = {s: round(v, 3) for s, v in mine.items()}
    out["kn4_perplexity_by_source"] = {s: round(v, 3) for s, v in kn4.items()}
    out["perplexity_ratio_vs_kn4_by_source"] = {s: round(mine[s] / kn4[s], 4) for s in mine}
    return out


def _as_kn_ids(row: np.ndarray) -> np.ndarray:
    """A model's input row as the KN model reads it: [CLS] → [BOS], [SEP] → [EOS], [MASK] → −1 (unknown)."""
    out = np.asarray(row, np.int64).copy()
    out[out == CLS], out[out == SEP], out[out == MASK] = BOS, EOS, -1
    return out


def _slot(row: np.ndarray, i: int) -> tuple[int, int, int, int]:
    """(l2, l1, r1, r2) around position i of a KN row, −1 where unknown or absent, with document bounds:
    left of a document's first id stands [BOS] alone; r2 is −1 when r1 is [EOS]."""
    n = len(row)
    l1 = int(row[i - 1]) if i >= 1 else -1
    l2 = int(row[i - 2]) if i >= 2 else -1
    if l1 in (BOS, EOS):
        l1, l2 = BOS, -1
    elif l2 == EOS:
        l2 = BOS
    r1 = int(row[i + 1]) if i + 1 < n else -1
    r2 = int(row[i + 2]) if i + 2 < n and r1 not in (-1, EOS) else -1
    return l2, l1, r1, r2


def fill_scores(kn: kneser_ney.KneserNey, slot) -> np.ndarray:
    """log P(w | l2 l1) + log P(r1 | l1 w) + log P(r2 | w r1) for every id w at one slot (l2, l1, r1, r2);
    a factor whose r1 or r2 is −1 is left out. -> (V,) float64."""
    l2, l1, r1, r2 = (int(x) for x in slot)
    scores = np.log(kn.distribution([l2, l1]))
    if r1 >= 0:
        scores += np.log(kn.prob_for_each([l1], [], r1))
    if r2 >= 0:
        scores += np.log(kn.prob_for_each([], [r1], r2))
    return scores


def fill_choice(kn: kneser_ney.KneserNey, slot) -> int:
    """The ordinary (non-special) id with the highest fill score at a slot (l2, l1, r1, r2)."""
    return len(SPECIALS) + int(np.argmax(fill_scores(kn, slot)[len(SPECIALS):]))


def fill_hits(kn: kneser_ney.KneserNey, inputs: np.ndarray, labels: np.ndarray,
              lengths: np.ndarray | None = None) -> tuple[int, int]:
    """How many masked positions (labels ≥ 0) of inputs (B, T) the two-sided KN fill gets right, of how many.
    lengths (B,): the real length of each row (the rest is padding)."""
    inputs, labels = np.asarray(inputs), np.asarray(labels)
    lengths = np.full(len(inputs), inputs.shape[1]) if lengths is None else np.asarray(lengths)
    hits = count = 0
    for b, i in zip(*np.nonzero(labels >= 0)):
        hits += fill_choice(kn, _slot(_as_kn_ids(inputs[b, :lengths[b]]), i)) == labels[b, i]
        count += 1
    return int(hits), count


def fill_accuracy(kn: kneser_ney.KneserNey, batches) -> float:
    """Share of the masked positions the fill gets right over batches of (inputs (B, T), labels (B, T)[,
    lengths (B,)]), arrays or tensors."""
    hits = count = 0
    for batch in batches:
        h, n = fill_hits(kn, *(np.asarray(x) for x in batch))
        hits, count = hits + h, count + n
    return hits / count
