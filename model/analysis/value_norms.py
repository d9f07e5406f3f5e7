"""Attention weighted by what it moves (Kobayashi et al. 2020, "Attention is not only a weight"): a head adds
α_ij · f(x_j) to token i, where f(x_j) = v_j W_O^h is key j's value vector after the head's slice of the output
projection. A large α_ij on a small ‖f(x_j)‖ moves little, so ‖α_ij f(x_j)‖ = α_ij ‖f(x_j)‖ says how much j
really sends i. For a layer, the heads' vectors are summed before the norm is taken: ‖Σ_h α_hij f_h(x_j)‖.

Kobayashi et al. 2021 add the residual: the attention output is added to x_i itself, so a layer's mixing share
for token i is Σ_j ‖Σ_h α_hij f_h(x_j)‖ / (that + ‖x_i‖), where raw attention rollout (Abnar & Zuidema 2020)
assumes one half. Rollout from the norms puts ‖x_i‖ on the diagonal instead of that half. W_O's bias is the same
for every key and left out.
"""
from dataclasses import dataclass

import numpy as np

from model.analysis.attention_views import rollout


def output_projections(model) -> np.ndarray:
    """(L, C, C) float32: each self-attention layer's W_O as stored (y = W_O z + b: rows are outputs)."""
    return np.stack([layer.self_attn.w_o.weight.detach().float().cpu().numpy() for layer in model.encoder.layers])


def transformed_values(v: np.ndarray, w_o: np.ndarray) -> np.ndarray:
    """f_h(x_j) for every layer, head and key: v (L, H, N, D), w_o (L, C, C) -> (L, H, N, C) float32, where head
    h's slice is w_o[:, h·D:(h+1)·D] (the columns that read its part of the concatenated heads)."""
    L, H, N, D = v.shape
    w = np.asarray(w_o, np.float32).reshape(L, -1, H, D).transpose(0, 2, 3, 1)       # (L, H, D, C)
    return np.asarray(v, np.float32) @ w                                              # (L, H, N, C)


def value_norms(f: np.ndarray) -> np.ndarray:
    """(L, H, N): ‖f_h(x_j)‖."""
    return np.linalg.norm(f, axis=-1)


def weighted_norms(weights: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """(L, H, N, N): α_hij ‖f_h(x_j)‖ (weights (L, H, N, N), norms (L, H, N))."""
    return np.asarray(weights, np.float32) * norms[:, :, None, :]


def layer_norms(weights: np.ndarray, f: np.ndarray) -> np.ndarray:
    """(L, N, N) float64: ‖Σ_h α_hij f_h(x_j)‖, computed from each key's (H, H) Gram matrix of its heads'
    vectors (never forming the (N, N, C) sums): ‖Σ_h a_h f_h‖² = Σ_h Σ_g a_h a_g ⟨f_h, f_g⟩."""
    L, H, N, _ = weights.shape
    gram = np.einsum("lhjc,lgjc->lhgj", f.astype(np.float64), f.astype(np.float64))   # (L, H, H, N)
    out = np.empty((L, N, N))
    for layer in range(L):
        a = weights[layer].astype(np.float64)                                          # (H, N, N)
        sq = np.zeros((N, N))
        for h in range(H):
            for g in range(H):
                sq += a[h] * a[g] * gram[layer, h, g][None, :]
        out[layer] = np.sqrt(np.maximum(sq, 0.0))
    return out


def mixing_share(layer_matrix: np.ndarray, residual_norms: np.ndarray) -> np.ndarray:
    """(L, N): for each layer and token, Σ_j ‖…‖ / (Σ_j ‖…‖ + ‖x_i‖): the share of what reaches token i that comes
    through attention rather than along the residual. residual_norms: (L, N) ‖x_i‖ entering each layer."""
    moved = layer_matrix.sum(-1)
    return moved / (moved + residual_norms)


def norm_rollout(layer_matrix: np.ndarray, residual_norms: np.ndarray) -> np.ndarray:
    """Rollout from the norms: Ã_l = layer_matrix_l + diag(‖x_i‖), rows renormalised; R_l = Ã_l … Ã_1.
    (L, N, N) -> (L, N, N) float64."""
    L, n, _ = layer_matrix.shape
    acc, out = np.eye(n), np.empty((L, n, n))
    for layer in range(L):
        a = layer_matrix[layer] + np.diag(residual_norms[layer])
        a = a / a.sum(-1, keepdims=True)
        acc = a @ acc
        out[layer] = acc
    return out


def row_normalised(m: np.ndarray) -> np.ndarray:
    """Each row divided by its sum (rows of zeros stay zero): α‖f‖ as shares, comparable to the weights."""
    s = m.sum(-1, keepdims=True)
    return np.divide(m, s, out=np.zeros_like(m, dtype=np.float64), where=s > 0)


def differ(raw: np.ndarray, norm: np.ndarray, margin: float = 0.01) -> np.ndarray:
    """(..., N) bool: the query rows whose largest raw weight and largest norm-weighted share fall on different
    keys, the norms' pick ahead by more than `margin` (near-ties do not count). raw, norm: (..., N, N)."""
    a, b = raw.argmax(-1), norm.argmax(-1)
    ahead = np.take_along_axis(norm, b[..., None], -1)[..., 0] - np.take_along_axis(norm, a[..., None], -1)[..., 0]
    return (a != b) & (ahead > margin)


def disagreements(raw: np.ndarray, norm: np.ndarray, top: int = 8) -> list[dict]:
    """The query rows that `differ`, the largest drop from raw weight to weighted share first:
    [{"query", "raw_key", "raw", "norm_key", "norm", "raw_key_share"}] with indices and shares
    (raw (N, N) weights, norm (N, N) row-normalised α‖f‖)."""
    out = []
    rows = differ(raw, norm)
    for i in range(raw.shape[0]):
        a, b = int(raw[i].argmax()), int(norm[i].argmax())
        if rows[i]:
            out.append({"query": i, "raw_key": a, "raw": float(raw[i, a]), "norm_key": b, "norm": float(norm[i, b]),
                        "raw_key_share": float(norm[i, a])})
    out.sort(key=lambda d: d["raw"] - d["raw_key_share"], reverse=True)
    return out[:top]


@dataclass(frozen=True)
class NormView:
    """Kobayashi et al.'s norms of one text. norms: (L, H, N) ‖f_h(x_j)‖; layer: (L, N, N) ‖Σ_h α f‖; share:
    (L, N) mixing share; rollout_raw, rollout_norm: (L, N, N)."""
    norms: np.ndarray
    layer: np.ndarray
    share: np.ndarray
    rollout_raw: np.ndarray
    rollout_norm: np.ndarray


def norm_view(model, run) -> NormView:
    """The norms of a TextRun that holds v (L, H, N, D), weights and hidden states, with both rollouts."""
    f = transformed_values(run.v, output_projections(model))
    layer = layer_norms(run.weights, f)
    residual = np.linalg.norm(run.hidden[:-1], axis=-1)                         # (L, N) ‖x_i‖ entering each layer
    return NormView(value_norms(f), layer, mixing_share(layer, residual), rollout(run.weights),
                    norm_rollout(layer, residual))
