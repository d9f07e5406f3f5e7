"""What the sinusoidal table makes easy (Vaswani et al. 2017, sec. 3.5): a shift by k positions is one
fixed block rotation M_k (PE(pos + k) = M_k · PE(pos)), and PE(i) · PE(j) depends on i − j only.

Plain numpy float64.
"""
import numpy as np

from model.engine.positions import sinusoidal


def frequencies(d_model: int) -> np.ndarray:
    """ω_i = 10000^(−2i/d) for the d/2 sine/cosine pairs. Returns (d/2,)."""
    if d_model % 2:
        raise ValueError(f"d_model={d_model} must be even for sine/cosine pairs")
    return 10000.0 ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)


def wavelengths(d_model: int) -> np.ndarray:
    """2π / ω_i: a geometric series from 2π (pair 0) towards 10000·2π. Returns (d/2,)."""
    return 2 * np.pi / frequencies(d_model)


def shift_matrix(k: float, d_model: int) -> np.ndarray:
    """M_k (d, d), block diagonal; pair i is [[cos kω_i, sin kω_i], [−sin kω_i, cos kω_i]], so that
    sin((p+k)ω) = cos(kω) sin(pω) + sin(kω) cos(pω) and cos((p+k)ω) = −sin(kω) sin(pω) + cos(kω) cos(pω)."""
    angle = k * frequencies(d_model)                                        # (d/2,)
    m = np.zeros((d_model, d_model))
    ev = np.arange(0, d_model, 2)
    m[ev, ev] = np.cos(angle)
    m[ev, ev + 1] = np.sin(angle)
    m[ev + 1, ev] = -np.sin(angle)
    m[ev + 1, ev + 1] = np.cos(angle)
    return m


def shift_errors(k: int, n_positions: int, d_model: int) -> np.ndarray:
    """|PE(pos + k) − M_k · PE(pos)| maximised over dimensions, for pos = 0..n_positions−1.

    k may be negative as long as pos + k ≥ 0 for every pos shown (pos starts at max(0, −k)).
    Returns (n_positions,) float64.
    """
    start = max(0, -k)
    pe = sinusoidal(start + n_positions + max(k, 0), d_model)              # rows 0..start+n+k−1
    pos = np.arange(start, start + n_positions)
    predicted = pe[pos] @ shift_matrix(k, d_model).T                       # row form: (M_k PE(pos))ᵀ
    return np.abs(pe[pos + k] - predicted).max(axis=1)


def similarity(table: np.ndarray, normalise: bool = False) -> np.ndarray:
    """S[i, j] = table[i] · table[j] (or the cosine when normalise). table: (N, C) -> (N, N)."""
    t = np.asarray(table, dtype=np.float64)
    if normalise:
        t = t / np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1e-12)
    return t @ t.T


def offset_profile(sim: np.ndarray, max_offset: int | None = None) -> dict:
    """Summarise S[i, i + δ] over i for δ = 0..max_offset (default N − 1).

    Returns {"offset": (K,), "mean", "min", "max": (K,)}; min == max for every δ means S depends
    on |i − j| only (a symmetric S gives the same values for −δ).
    """
    s = np.asarray(sim, dtype=np.float64)
    n = s.shape[0]
    top = n - 1 if max_offset is None else min(max_offset, n - 1)
    diags = [np.diagonal(s, offset=d) for d in range(top + 1)]
    return {"offset": np.arange(top + 1), "mean": np.array([d.mean() for d in diags]),
            "min": np.array([d.min() for d in diags]), "max": np.array([d.max() for d in diags])}


def closed_form_similarity(offset, d_model: int) -> np.ndarray:
    """PE(i) · PE(i + δ) = Σ_i cos(δ ω_i) for the sinusoidal table (δ: scalar or array)."""
    delta = np.asarray(offset, dtype=np.float64)[..., None]
    return np.cos(delta * frequencies(d_model)).sum(axis=-1)


if __name__ == "__main__":    # python -m model.analysis.shift: the identities in numbers
    import json
    sim = offset_profile(similarity(sinusoidal(512, 128)))
    print(json.dumps({
        "shift_identity_max_error_k1_k7_k100_d128_pos0_4999": max(
            float(shift_errors(k, 5000, 128).max()) for k in (1, 7, 100)),
        "similarity_max_spread_same_offset_n512_d128": float((sim["max"] - sim["min"]).max())}, indent=1))
