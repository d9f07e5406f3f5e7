"""Why attention divides by √d_k: for q, k ~ N(0, I) the dot product q·k has variance d_k, so unscaled logits
grow with d_k and the softmax saturates (one weight near 1, a vanishing Jacobian). Random queries and keys,
seeded, float64 numpy."""
import numpy as np

from model import reference


def _softmax_stats(logits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """logits (..., n) -> weights (..., n), max weight (...), Frobenius norm of the softmax
    Jacobian ∂p/∂logits = diag(p) - p pᵀ (...)."""
    p = reference.softmax(logits)
    jac = np.einsum("...i,ij->...ij", p, np.eye(p.shape[-1])) - p[..., :, None] * p[..., None, :]
    return p, p.max(-1), np.sqrt((jac ** 2).sum((-2, -1)))


def random_scores(d_k: int, n_keys: int = 8, n_samples: int = 1, seed: int = 0) -> np.ndarray:
    """q · k for q, k ~ N(0, I_{d_k}) (variance d_k): (n_samples, n_keys), seeded by (seed, d_k)."""
    rng = np.random.default_rng([seed, d_k])
    q = rng.standard_normal((n_samples, 1, d_k))
    k = rng.standard_normal((n_samples, n_keys, d_k))
    return (q * k).sum(-1)


def softmax_example(d_k: int, scaled: bool, n_keys: int = 8, seed: int = 0) -> dict:
    """One random query against n_keys random keys. Returns scores (n,), logits (n,) (= scores/√d_k
    when scaled), weights (n,), max_weight, grad_norm (‖∂softmax/∂logits‖_F)."""
    s = random_scores(d_k, n_keys, 1, seed)[0]
    logits = s / np.sqrt(d_k) if scaled else s
    p, top, grad = _softmax_stats(logits)
    return {"scores": s, "logits": logits, "weights": p, "max_weight": float(top), "grad_norm": float(grad)}


SAME_WITHIN = 0.05                                   # largest weights closer than this are "about the same"
CHANGES = ("flatter", "about the same", "more peaked")


def without_scaling(scores: np.ndarray, d_k: int) -> dict:
    """One query's softmax with and without the 1/√d_k scaling. scores: (n,) q·k, −inf where masked.
    Returns weights_scaled, weights_unscaled (n,); max_scaled, max_unscaled; entropy_scaled, entropy_unscaled
    (nats); change: "more peaked" / "flatter" when the largest weight grows / shrinks by more than SAME_WITHIN
    without the scaling, else "about the same"."""
    s = np.asarray(scores, dtype=np.float64)
    out = {}
    for tag, logits in (("scaled", s / np.sqrt(d_k)), ("unscaled", s)):
        p = reference.softmax(logits)
        out[f"weights_{tag}"], out[f"max_{tag}"] = p, float(p.max())
        out[f"entropy_{tag}"] = float(-(p[p > 0] * np.log(p[p > 0])).sum())
    grows = out["max_unscaled"] - out["max_scaled"]
    out["change"] = CHANGES[2] if grows > SAME_WITHIN else CHANGES[0] if grows < -SAME_WITHIN else CHANGES[1]
    return out


def saturation(d_ks, n_keys: int = 8, n_samples: int = 256, seed: int = 0) -> dict[str, np.ndarray]:
    """Mean max softmax weight and mean softmax-Jacobian norm over n_samples random queries, for each
    d_k, with and without the 1/√d_k scaling. Returns d_k, max_scaled, max_unscaled, grad_scaled,
    grad_unscaled, each (len(d_ks),)."""
    out = {k: [] for k in ("max_scaled", "max_unscaled", "grad_scaled", "grad_unscaled")}
    for d in d_ks:
        s = random_scores(int(d), n_keys, n_samples, seed)
        for tag, logits in (("scaled", s / np.sqrt(d)), ("unscaled", s)):
            _, top, grad = _softmax_stats(logits)
            out[f"max_{tag}"].append(top.mean())
            out[f"grad_{tag}"].append(grad.mean())
    return {"d_k": np.asarray(d_ks), **{k: np.asarray(v) for k, v in out.items()}}
