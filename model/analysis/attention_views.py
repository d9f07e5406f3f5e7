"""Pure-numpy views of captured attention: attention rollout across layers (Abnar & Zuidema 2020),
hiding special tokens with row renormalisation."""
import numpy as np

HIDDEN_BY_TOGGLE = ("[CLS]", "[SEP]", "[PAD]", "[BOS]", "[EOS]")


def rollout(weights: np.ndarray, residual: float = 0.5) -> np.ndarray:
    """Attention rollout: Ã_l = residual·I + (1 - residual)·mean_h A_l, rows renormalised;
    R_l = Ã_l Ã_(l-1) … Ã_1. weights (L, H, N, N) -> (L, N, N), R after each layer, float64."""
    L, _, n, _ = weights.shape
    eye = np.eye(n)
    out = np.empty((L, n, n))
    acc = eye
    for layer in range(L):
        a = residual * eye + (1 - residual) * weights[layer].astype(np.float64).mean(0)   # (N, N)
        a /= a.sum(-1, keepdims=True)
        acc = a @ acc
        out[layer] = acc
    return out


def keep_positions(tokens: list[str], hide=HIDDEN_BY_TOGGLE) -> np.ndarray:
    """Indices (K,) of the tokens not in `hide`."""
    return np.array([i for i, t in enumerate(tokens) if t not in hide], dtype=int)


def renormalised(matrix: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, float]:
    """Rows and columns `keep` of one head (N, N), each row divided by its weight on the kept keys.

    Returns (K, K) matrix and the mean share of weight that was removed (on hidden keys).
    A row with no weight left stays zero.
    """
    sub = matrix[np.ix_(keep, keep)].astype(np.float64)     # (K, K)
    kept = sub.sum(-1, keepdims=True)
    removed = float(1.0 - kept.mean()) if len(keep) else 0.0
    return np.divide(sub, kept, out=np.zeros_like(sub), where=kept > 0), removed
