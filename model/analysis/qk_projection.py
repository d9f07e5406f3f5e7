"""Queries and keys of one head in one picture (AttentionViz, Yeh et al. 2023): both projected by the SAME
principal components, so a query lies near the keys it scores highly only if the head's dot products say so.

Before the PCA the keys may be aligned, as AttentionViz does, in two ways that change no softmax row: shifted so
their mean is the queries' mean (q_i·(k_j + t) adds q_i·t to a whole row), and queries and keys scaled by c and
1/c so both have the same mean length (q·k unchanged)."""
from dataclasses import dataclass

import numpy as np
import torch

from model.data import text_input
from model.data.bpe import PAD
from model.engine.capture import capturing


@dataclass(frozen=True)
class Projection:
    """queries (N, 2) and keys (M, 2) on the two principal components of the stacked (aligned) vectors;
    explained (2,): the share of their variance each component holds; scale: c (queries × c, keys ÷ c; 1 when
    not aligned); shift: (D,) added to every key (0 when not aligned)."""
    queries: np.ndarray
    keys: np.ndarray
    explained: np.ndarray
    scale: float
    shift: np.ndarray


def aligned(q: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """(q·c, (k + t)/c, c, t): keys shifted to the queries' mean, then both scaled to one mean length."""
    q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)
    shift = q.mean(0) - k.mean(0)
    k = k + shift
    c = float(np.sqrt(np.linalg.norm(k, axis=1).mean() / max(np.linalg.norm(q, axis=1).mean(), 1e-12)))
    return q * c, k / c, c, shift


def project(q: np.ndarray, k: np.ndarray, align: bool = True) -> Projection:
    """q (N, D), k (M, D) -> Projection onto the top two principal components of [q; k] (centred together)."""
    if align:
        q2, k2, c, shift = aligned(q, k)
    else:
        q2, k2, c, shift = np.asarray(q, np.float64), np.asarray(k, np.float64), 1.0, np.zeros(q.shape[1])
    x = np.vstack([q2, k2])
    x = x - x.mean(0)
    _, s, vt = np.linalg.svd(x, full_matrices=False)
    var = s ** 2
    comps = vt[:2]
    if comps.shape[0] < 2:                                # a 1-dimensional head: a zero second axis
        comps = np.vstack([comps, np.zeros_like(comps)])
    p = x @ comps.T                                                                  # (N + M, 2)
    explained = var[:2] / var.sum() if var.sum() > 0 else np.zeros(2)
    return Projection(p[:len(q)], p[len(q):], np.pad(explained, (0, 2 - len(explained))), c, shift)


def strongest_pairs(weights: np.ndarray, count: int) -> np.ndarray:
    """(P, 3) rows (query, key, weight) of the `count` largest weights of an (N, M) matrix, largest first."""
    flat = np.asarray(weights).ravel()
    count = min(count, flat.size)
    idx = np.argpartition(-flat, count - 1)[:count] if count else np.array([], dtype=int)
    idx = idx[np.argsort(-flat[idx], kind="stable")]
    i, j = np.divmod(idx, weights.shape[1])
    return np.stack([i, j, flat[idx]], axis=1)


@dataclass(frozen=True)
class SentenceQK:
    """One head on several texts, each read alone: tokens, q (n_i, D), k (n_i, D), weights (n_i, n_i) each."""
    tokens: tuple[tuple[str, ...], ...]
    q: tuple[np.ndarray, ...]
    k: tuple[np.ndarray, ...]
    weights: tuple[np.ndarray, ...]


@torch.inference_mode()
def sentences_qk(model, tokenizer, rule: str, texts: list[str], layer: int, head: int) -> SentenceQK:
    """Queries, keys and weights of head (layer, head) for each text (one padded batch, padding never attended;
    a decoder keeps its causal mask)."""
    encs = [text_input.encode(tokenizer, t, rule).cut(model.config.max_len) for t in texts]
    T = max(len(e.ids) for e in encs)
    device = next(model.parameters()).device
    ids = torch.full((len(encs), T), PAD, dtype=torch.long, device=device)
    for i, e in enumerate(encs):
        ids[i, :len(e.ids)] = torch.tensor(e.ids)
    mask = (ids != PAD)[:, None, None, :]                                              # (B, 1, 1, T)
    own = model.pattern_mask(T, device)
    if own is not None:                                 # a sparse model: a mask given replaces its own pattern
        mask = mask & own
    with capturing("weights", "q", "k"):
        inter = model.encode(ids, mask=mask).intermediates[layer]
    q, k, w = (t[:, head].float().cpu().numpy() for t in (inter.q, inter.k, inter.weights))
    n = [len(e.ids) for e in encs]
    return SentenceQK(tuple(tuple(e.tokens) for e in encs), tuple(q[b, :m] for b, m in enumerate(n)),
                      tuple(k[b, :m] for b, m in enumerate(n)), tuple(w[b, :m, :m] for b, m in enumerate(n)))
