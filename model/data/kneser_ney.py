"""An interpolated modified Kneser–Ney n-gram model on integer ids (Chen & Goodman 1998, §3.5), the count-based
baseline a small transformer must beat on the same ids:

    P_k(w | h) = (c_k(hw) − D_k(c_k(hw))) / c_k(h•) + γ_k(h) · P_{k−1}(w | h')    if c_k(h•) > 0, else P_{k−1}(w | h')
    γ_k(h)     = (D_k,1 · N1(h•) + D_k,2 · N2(h•) + D_k,3+ · N3+(h•)) / c_k(h•)
    P_0(w)     = 1 / V                                                           (uniform over the vocabulary)

h' is h without its first id; c_k(h•) = Σ_w c_k(hw); N_i(h•) counts the ids w with c_k(hw) = i (N3+: ≥ 3).
c_k is the raw count at the model's order n. At lower orders it is the continuation count N1+(•hw) (how many
distinct ids precede hw), except for n-grams that start with [BOS]: nothing precedes [BOS], so those keep their
raw count (as SRILM does); [BOS] itself is never predicted and gets no unigram count. Three discounts per order
from the count-of-counts n1..n4 of that order's c_k:

    Y = n1 / (n1 + 2 n2),  D1 = 1 − 2Y n2/n1,  D2 = 2 − 3Y n3/n2,  D3+ = 3 − 4Y n4/n3

(in a tiny corpus, where some n_i is zero or a D_i falls outside (0, i], that discount is 0.5, so that every
context passes some mass to the order below and no id gets probability 0).

An n-gram (a_1 .. a_k) is stored as the exact int64 key Σ a_j · V^(k−j), so V^order must stay below 2^63
(V = 8,192: order 4 at most). Counts live in sorted key arrays; look-ups are np.searchsorted.
`cached(...)` keeps the fitted counts as .npz under the corpus cache, keyed by a hash of the ids and the order.
"""
import hashlib
import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CACHE_VERSION = 1        # bump when the counting below changes, so cached counts are rebuilt
FALLBACK_DISCOUNT = 0.5  # where the count-of-counts give no usable discount (tiny corpora): every order passes mass on


def discounts(counts: np.ndarray) -> np.ndarray:
    """(D1, D2, D3+) from the count-of-counts of `counts` (Chen & Goodman 1998, eq. 26); FALLBACK_DISCOUNT for
    one the count-of-counts leave undefined or outside (0, i]. -> (3,) float64."""
    n = [int(np.count_nonzero(counts == i)) for i in (1, 2, 3, 4)]
    out = np.full(3, FALLBACK_DISCOUNT)
    if all(n):
        y = n[0] / (n[0] + 2 * n[1])
        for i in (1, 2, 3):
            d = i - (i + 1) * y * n[i] / n[i - 1]
            out[i - 1] = d if 0 < d <= i else FALLBACK_DISCOUNT
    return out


def packed(seqs) -> tuple[np.ndarray, np.ndarray]:
    """A list of id sequences as one int64 array and offsets (sequence i is ids[offsets[i]:offsets[i + 1]])."""
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(lengths)
    ids = np.concatenate([np.asarray(s, np.int64) for s in seqs]) if len(seqs) else np.zeros(0, np.int64)
    return ids, offsets


def ngram_keys(ids: np.ndarray, offsets: np.ndarray, k: int, vocab_size: int) -> np.ndarray:
    """The key of every k-gram lying inside one sequence. -> (count,) int64, in text order."""
    lengths = np.diff(offsets)
    remaining = np.repeat(offsets[1:], lengths) - np.arange(len(ids))      # ids from each position to its end
    starts = np.flatnonzero(remaining >= k)
    keys = np.zeros(len(starts), np.int64)
    for j in range(k):
        keys = keys * vocab_size + ids[starts + j]
    return keys


@dataclass(frozen=True)
class Level:
    """The k-grams of one order with their counts c_k, and what the formula needs per context h (k − 1 ids)."""
    keys: np.ndarray          # (K,) int64 sorted k-gram keys
    counts: np.ndarray        # (K,) int64 c_k(hw) > 0
    kept: np.ndarray          # (K,) float64 c_k(hw) − D(c_k(hw))
    context_keys: np.ndarray  # (C,) int64 sorted keys of the contexts h
    context_total: np.ndarray  # (C,) float64 c_k(h•)
    context_left: np.ndarray  # (C,) float64 D1·N1(h•) + D2·N2(h•) + D3+·N3+(h•), the mass passed down
    discounts: np.ndarray     # (3,) D1, D2, D3+

    @classmethod
    def of(cls, keys: np.ndarray, counts: np.ndarray, vocab_size: int) -> "Level":
        d = discounts(counts)
        if not len(keys):
            return cls(keys, counts, np.zeros(0), keys, np.zeros(0), np.zeros(0), d)
        taken = d[np.minimum(counts, 3) - 1]
        context_keys, first = np.unique(keys // vocab_size, return_index=True)
        return cls(keys, counts, counts - taken, context_keys, np.add.reduceat(counts.astype(np.float64), first),
                   np.add.reduceat(taken, first), d)


def _find(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each key in sorted_keys (not empty; clipped) and whether it is there."""
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return at, sorted_keys[at] == keys


class KneserNey:
    """A fitted model: order n, vocabulary size V, the [BOS] id (or None) and one Level per order 1..n."""

    def __init__(self, order: int, vocab_size: int, bos: int | None, counted: list[tuple[np.ndarray, np.ndarray]]):
        self.order, self.vocab_size, self.bos = order, vocab_size, bos
        self.levels = [Level.of(keys, counts, vocab_size) for keys, counts in counted]
        first = self.levels[0]
        dense_kept = np.zeros(vocab_size)
        dense_kept[first.keys] = first.kept
        total = float(first.counts.sum())
        # P_1(w) = kept(w) / c_1 + (mass passed down) / c_1 · 1/V; uniform when nothing was counted
        self.unigram = (dense_kept + float(first.context_left.sum()) / vocab_size) / total if total else \
            np.full(vocab_size, 1.0 / vocab_size)
        self._moved: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}

    @classmethod
    def fit(cls, seqs, order: int, vocab_size: int, bos: int | None = None) -> "KneserNey":
        """Count a list of id sequences (each, e.g., [BOS] doc [EOS]); n-grams never cross two sequences."""
        return cls.fit_packed(*packed(seqs), order, vocab_size, bos)

    @classmethod
    def fit_packed(cls, ids: np.ndarray, offsets: np.ndarray, order: int, vocab_size: int,
                   bos: int | None = None) -> "KneserNey":
        """The same from packed sequences (see `packed`)."""
        if order < 1 or vocab_size ** order >= 2 ** 63:
            raise ValueError(f"order {order} with a vocabulary of {vocab_size} does not fit int64 keys")
        ids = np.asarray(ids, np.int64)
        if len(ids) and (ids.min() < 0 or ids.max() >= vocab_size):
            raise ValueError(f"ids must lie in 0..{vocab_size - 1}")
        raw = [np.unique(ngram_keys(ids, np.asarray(offsets, np.int64), k, vocab_size), return_counts=True)
               for k in range(1, order + 1)]
        counted = [raw[-1]]
        for k in range(order - 1, 0, -1):
            keys, counts = np.unique(raw[k][0] % vocab_size ** k, return_counts=True)   # N1+(• h w)
            if bos is not None and k >= 2:
                own = keys // vocab_size ** (k - 1) != bos
                raw_keys, raw_counts = raw[k - 1]
                from_bos = raw_keys // vocab_size ** (k - 1) == bos
                keys = np.concatenate([keys[own], raw_keys[from_bos]])
                counts = np.concatenate([counts[own], raw_counts[from_bos]])
                by_key = np.argsort(keys)
                keys, counts = keys[by_key], counts[by_key]
            counted.insert(0, (keys, counts))
        return cls(order, vocab_size, bos, [(keys, counts.astype(np.int64)) for keys, counts in counted])

    def prob(self, history, nxt) -> np.ndarray:
        """P(nxt[i] | history[i]) for a batch: history (N, m) ids, oldest first, −1 where no id is known (the
        context is then only what follows the last −1); only its last n − 1 ids are read. -> (N,) float64."""
        nxt = np.asarray(nxt, np.int64).reshape(-1)
        history = np.asarray(history, np.int64)
        if history.ndim != 2 or len(history) != len(nxt):
            raise ValueError(f"history must be ({len(nxt)}, m) for {len(nxt)} next ids; got shape {history.shape}")
        V = self.vocab_size
        p = self.unigram[nxt]
        for k in range(2, min(self.order, history.shape[1] + 1) + 1):
            level = self.levels[k - 1]
            if not len(level.keys):
                continue
            h = history[:, history.shape[1] - (k - 1):]
            known = (h >= 0).all(axis=1)
            context = np.zeros(len(nxt), np.int64)
            for j in range(k - 1):
                context = context * V + np.where(known, h[:, j], 0)
            at, seen = _find(level.context_keys, context)
            seen &= known
            j, hit = _find(level.keys, context * V + nxt)
            kept = np.where(hit, level.kept[j], 0.0)
            p = np.where(seen, (kept + level.context_left[at] * p) / level.context_total[at], p)
        return p

    def logprob(self, context, next_ids) -> np.ndarray:
        """log P(w | context) for each w of next_ids, one context (a sequence of ids, oldest first)."""
        next_ids = np.asarray(next_ids, np.int64).reshape(-1)
        return np.log(self.prob(self._rows(context, len(next_ids)), next_ids))

    def distribution(self, context) -> np.ndarray:
        """P(w | context) for every id w of the vocabulary (context: ids oldest first, −1 = unknown, as in
        `prob`). -> (V,) float64, summing to 1. The n-grams of one context are one slice of the sorted keys."""
        V = self.vocab_size
        context = [int(c) for c in context]
        p = self.unigram.copy()
        for k in range(2, min(self.order, len(context) + 1) + 1):
            level, h = self.levels[k - 1], context[len(context) - (k - 1):]
            if not len(level.keys) or min(h) < 0:
                continue
            key = 0
            for c in h:
                key = key * V + c
            at = int(np.searchsorted(level.context_keys, key))
            if at == len(level.context_keys) or level.context_keys[at] != key:
                continue
            lo, hi = np.searchsorted(level.keys, [key * V, (key + 1) * V])
            p *= level.context_left[at]
            p[level.keys[lo:hi] % V] += level.kept[lo:hi]
            p /= level.context_total[at]
        return p

    def prob_for_each(self, before, after, nxt: int) -> np.ndarray:
        """P(nxt | before, w, after) for every id w of the vocabulary: the history with one open slot (ids oldest
        first, −1 = unknown, as in `prob`). -> (V,) float64. The n-grams that share every id but the slot's are
        one slice of keys sorted with the slot's digit last (`_slot_sorted`)."""
        V = self.vocab_size
        before, after = [int(c) for c in before], [int(c) for c in after]
        p = np.full(V, self.unigram[nxt])
        for k in range(2, self.order + 1):
            level = self.levels[k - 1]
            if len(after) >= k - 1:                                   # the slot lies outside this context
                context = after[len(after) - (k - 1):]
                if min(context) < 0:
                    break
                p = np.full(V, self.prob(np.array([context]), [nxt])[0])
                continue
            j = k - 2 - len(after)                                    # the slot's place among the context's ids
            if j > len(before) or min(before[len(before) - j:] + after, default=0) < 0:
                break
            if not len(level.keys):
                continue
            others = before[len(before) - j:] + after
            base = 0
            for c in others:
                base = base * V + c
            context_keys, total, left, gram_keys, kept = self._slot_sorted(k, j)
            lo, hi = np.searchsorted(context_keys, [base * V, (base + 1) * V])
            dense_total, dense_left, dense_kept = np.zeros(V), np.zeros(V), np.zeros(V)
            dense_total[context_keys[lo:hi] % V], dense_left[context_keys[lo:hi] % V] = total[lo:hi], left[lo:hi]
            lo, hi = np.searchsorted(gram_keys, [(base * V + nxt) * V, (base * V + nxt + 1) * V])
            dense_kept[gram_keys[lo:hi] % V] = kept[lo:hi]
            seen = dense_total > 0
            p = np.where(seen, (dense_kept + dense_left * p) / np.where(seen, dense_total, 1.0), p)
        return p

    def _slot_sorted(self, k: int, j: int) -> tuple[np.ndarray, ...]:
        """Order k's context keys (with their totals and passed-down mass) and k-gram keys (with their kept
        counts), each with the id at place j moved to the last digit, sorted. Built once per (k, j)."""
        if (k, j) not in self._moved:
            level, V = self.levels[k - 1], self.vocab_size

            def moved(keys: np.ndarray, digits: int) -> np.ndarray:
                after = V ** (digits - 1 - j)
                return ((keys // (after * V)) * after + keys % after) * V + (keys // after) % V

            c, g = moved(level.context_keys, k - 1), moved(level.keys, k)
            ci, gi = np.argsort(c), np.argsort(g)
            self._moved[k, j] = (c[ci], level.context_total[ci], level.context_left[ci], g[gi], level.kept[gi])
        return self._moved[k, j]

    def _rows(self, context, n: int) -> np.ndarray:
        ctx = np.asarray(context, np.int64).reshape(-1)[max(0, len(context) - (self.order - 1)):]
        return np.tile(ctx, (n, 1)) if len(ctx) else np.zeros((n, 0), np.int64)

    def perplexity(self, seqs) -> float:
        """exp of the mean negative log-probability of every id after the first of each sequence."""
        ids, offsets = packed(seqs)
        starts = np.repeat(offsets[:-1], np.diff(offsets))
        at = np.arange(len(ids))[np.arange(len(ids)) > starts]              # positions after a sequence's first
        if not len(at):
            raise ValueError("no sequence has two or more ids to score")
        history = np.full((len(at), max(self.order - 1, 0)), -1, np.int64)
        for j in range(1, self.order):
            inside = at - j >= starts[at]
            history[inside, self.order - 1 - j] = ids[at[inside] - j]
        return math.exp(-float(np.log(self.prob(history, ids[at])).mean()))

    def arrays(self) -> dict[str, np.ndarray]:
        """The fitted counts as plain arrays (what `cached` stores)."""
        out = {"meta": np.array([self.order, self.vocab_size, -1 if self.bos is None else self.bos], np.int64)}
        for k, level in enumerate(self.levels, start=1):
            out[f"keys{k}"], out[f"counts{k}"] = level.keys, level.counts
        return out

    @classmethod
    def from_arrays(cls, arrays) -> "KneserNey":
        order, vocab_size, bos = (int(x) for x in arrays["meta"])
        counted = [(arrays[f"keys{k}"], arrays[f"counts{k}"]) for k in range(1, order + 1)]
        return cls(order, vocab_size, None if bos < 0 else bos, counted)


def cached(ids: np.ndarray, offsets: np.ndarray, order: int, vocab_size: int, bos: int | None = None,
           folder: Path | None = None) -> KneserNey:
    """`KneserNey.fit_packed`, its counts kept in folder (default: the corpus cache) by a hash of the ids."""
    ids, offsets = np.ascontiguousarray(ids, np.int64), np.ascontiguousarray(offsets, np.int64)
    key = hashlib.sha256(ids.tobytes())
    key.update(offsets.tobytes())
    key.update(f"{order} {vocab_size} {bos} {CACHE_VERSION}".encode())
    if folder is None:
        from model.data import real_text
        folder = real_text.cache_dir()
    path = Path(folder) / f"kneser_ney-{order}-{key.hexdigest()[:16]}.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as f:
            return KneserNey.from_arrays(f)
    model = KneserNey.fit_packed(ids, offsets, order, vocab_size, bos)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")         # one per process: two may build it at once
    np.savez(tmp, **model.arrays())
    tmp.replace(path)
    return model
