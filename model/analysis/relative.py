"""Relative position schemes acting on attention scores: RoPE (Su et al. 2021, RoFormer) rotates
q and k by angles proportional to their positions; ALiBi (Press et al. 2022) adds a bias −m·|i − j|.

Plain numpy float64, row form (tokens are rows), so the page can show the numbers to the digit.
"""
import numpy as np

from model.engine.positions import sinusoidal


def rope_angles(positions, head_dim: int, base: float = 10000.0) -> np.ndarray:
    """θ(pos, i) = pos · base^(−2i/D) for the D/2 rotated pairs. positions: (T,) -> (T, D/2)."""
    if head_dim % 2:
        raise ValueError(f"head_dim={head_dim} must be even: RoPE rotates pairs of coordinates")
    pos = np.asarray(positions, dtype=np.float64).reshape(-1, 1)            # (T, 1)
    rate = base ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)  # (D/2,)
    return pos * rate


def rope(x: np.ndarray, positions, base: float = 10000.0) -> np.ndarray:
    """Rotate each pair (x[2i], x[2i+1]) of row t by θ(positions[t], i).

    x: (T, D) (or (..., T, D)); positions: (T,). Returns float64 of x's shape. Norms are kept.
    """
    x = np.asarray(x, dtype=np.float64)
    theta = rope_angles(positions, x.shape[-1], base)                      # (T, D/2)
    cos, sin = np.cos(theta), np.sin(theta)
    even, odd = x[..., 0::2], x[..., 1::2]                                 # (..., T, D/2)
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def rope_scores(q: np.ndarray, k: np.ndarray, q_positions=None, k_positions=None,
                base: float = 10000.0) -> np.ndarray:
    """Scaled scores after RoPE: (R_m q_m) · (R_n k_n) / √D. q: (Tq, D), k: (Tk, D) -> (Tq, Tk).

    Positions default to 0..T−1. The product equals q_m · R_(n−m) k_n: only the offset n − m enters.
    """
    q, k = np.atleast_2d(q), np.atleast_2d(k)
    qp = np.arange(q.shape[0]) if q_positions is None else q_positions
    kp = np.arange(k.shape[0]) if k_positions is None else k_positions
    return rope(q, qp, base) @ rope(k, kp, base).T / np.sqrt(q.shape[-1])


def same_content_scores(q_vec: np.ndarray, k_vec: np.ndarray, n_positions: int, scheme: str = "rope",
                        base: float = 10000.0) -> np.ndarray:
    """Scores of one query vector placed at every position against one key vector at every position.

    q_vec, k_vec: (D,). scheme: "rope" (rotated: a Toeplitz matrix, constant along diagonals),
    "absolute" (the sinusoidal table added to q and k: cross terms depend on where, not only how far)
    or "none" (the same score everywhere). Returns (N, N).
    """
    q = np.tile(np.asarray(q_vec, dtype=np.float64), (n_positions, 1))      # (N, D)
    k = np.tile(np.asarray(k_vec, dtype=np.float64), (n_positions, 1))
    if scheme == "rope":
        return rope_scores(q, k, base=base)
    if scheme == "absolute":
        pe = sinusoidal(n_positions, q.shape[-1])
        q, k = q + pe, k + pe
    elif scheme != "none":
        raise ValueError(f"scheme={scheme!r}; choose rope, absolute or none")
    return q @ k.T / np.sqrt(q.shape[-1])


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The geometric head slopes of ALiBi: m_h = 2^(−8(h+1)/H) for heads h = 0..H−1, counted from 0 as the pages
    label them (H0 has 2^(−8/H)); the paper writes 2^(−8h/H) with h = 1..H. H a power of two; otherwise the
    paper's interleaving of the next power of two. Returns (H,)."""
    def powers(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (h + 1) for h in range(n)]
    if n_heads < 1:
        raise ValueError("n_heads must be at least 1")
    p2 = 2 ** int(np.floor(np.log2(n_heads)))
    slopes = powers(p2)
    if p2 < n_heads:
        slopes += powers(2 * p2)[0::2][: n_heads - p2]
    return np.array(slopes, dtype=np.float64)


def alibi_bias(n_positions: int, slope: float, causal: bool = False) -> np.ndarray:
    """bias[i, j] = −slope · |i − j| added to the scores (N, N). causal=True puts −inf above the
    diagonal (the paper's decoder setting)."""
    idx = np.arange(n_positions)
    bias = -slope * np.abs(idx[:, None] - idx[None, :]).astype(np.float64)
    if causal:
        bias = np.where(idx[None, :] <= idx[:, None], bias, -np.inf)
    return bias


def offset_spread(matrix: np.ndarray) -> np.ndarray:
    """For a square (N, N) matrix, max − min along each diagonal j − i = δ, δ = −(N−1)..N−1.

    Zero everywhere means the matrix is a function of the offset only. Returns (2N − 1,).
    """
    m = np.asarray(matrix, dtype=np.float64)
    n = m.shape[0]
    return np.array([np.ptp(np.diagonal(m, offset=d)) for d in range(-(n - 1), n)])


if __name__ == "__main__":    # python -m model.analysis.relative: RoPE's offset property in numbers
    import json
    q, k = np.random.default_rng(0).normal(size=(2, 64))
    print(json.dumps({f"{s}_max_spread_along_diagonals_n256_d64": float(
        offset_spread(same_content_scores(q, k, 256, s)).max()) for s in ("rope", "absolute")}, indent=1))
