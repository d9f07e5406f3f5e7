"""Why one attention weight is what it is: the pre-softmax score of query i and key j taken apart,
score_ij = (Σ_d q_i,d · k_j,d) / √d_k (+ a bias the model adds, −∞ where a mask forbids), and the whole row of
scores the softmax turned into weights (Vaswani et al. 2017, eq. 1). Every number is read from the model's own
captured q, k, scores and weights (model.tasks.attention_run.run_text with qkv=True)."""
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScoreParts:
    """One cell (i, j) of one head. products: (D,) q_i,d · k_j,d; dot: their sum; scale: 1/√d_k; rebuilt:
    dot · scale; score: the captured score (−inf where masked), bias: score − rebuilt where allowed (a model's
    added bias; ~1e-7 rounding otherwise); allowed: the mask lets i see j; top: indices of the dimensions with
    the largest |product|, largest first; row_scores, row_weights: (N,) the captured row; weight: row_weights[j]."""
    i: int
    j: int
    products: np.ndarray
    dot: float
    scale: float
    rebuilt: float
    score: float
    bias: float
    allowed: bool
    top: np.ndarray
    row_scores: np.ndarray
    row_weights: np.ndarray

    @property
    def weight(self) -> float:
        return float(self.row_weights[self.j])

    @property
    def rank(self) -> int:
        """1 for the row's largest weight."""
        return int((self.row_weights > self.row_weights[self.j]).sum()) + 1

    def softmax_check(self) -> float:
        """Largest |softmax(row_scores) − captured row weights| (the row the softmax competed over)."""
        s = np.asarray(self.row_scores, dtype=np.float64)
        finite = np.isfinite(s)
        if not finite.any():
            return float(np.abs(self.row_weights).max())
        e = np.where(finite, np.exp(s - s[finite].max()), 0.0)
        return float(np.abs(e / e.sum() - self.row_weights).max())


def decompose(q: np.ndarray, k: np.ndarray, scores: np.ndarray, weights: np.ndarray, i: int, j: int,
              top: int = 6) -> ScoreParts:
    """q (N, D), k (N, D): one head's queries and keys; scores, weights (N, N): its captured pre-softmax scores
    and weights. Returns the parts of cell (i, j) in float64."""
    n = scores.shape[0]
    if not (0 <= i < n and 0 <= j < scores.shape[1]):
        raise IndexError(f"cell ({i}, {j}) is outside {scores.shape}")
    qi, kj = np.asarray(q[i], np.float64), np.asarray(k[j], np.float64)
    products = qi * kj                                                    # (D,)
    dot, scale = float(products.sum()), 1.0 / np.sqrt(q.shape[-1])
    score = float(scores[i, j])
    allowed = bool(np.isfinite(score))
    rebuilt = dot * scale
    order = np.argsort(-np.abs(products), kind="stable")[:top]
    return ScoreParts(i, j, products, dot, float(scale), rebuilt, score, score - rebuilt if allowed else 0.0,
                      allowed, order, np.asarray(scores[i], np.float64), np.asarray(weights[i], np.float64))
