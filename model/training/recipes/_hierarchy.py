"""Figures shared by the hierarchical image recipes (Swin, DaViT): token counts and widths per stage, the
attention pairs each layer computes, the largest weight outside a token's window, and the share of the
pooled output's rollout (model.analysis.hierarchical_rollout) on the patches that matter."""
import numpy as np
import torch

from model.analysis.hierarchical_rollout import hierarchical_rollout, pooled
from model.engine.capture import capturing


@torch.inference_mode()
def captured(model, x: np.ndarray, batch: int = 128):
    """Every image's per-layer weights: a list over layers of (B, H, N_s, N_s) arrays (None for a layer without
    token attention)."""
    model.eval()
    parts = []
    for i in range(0, len(x), batch):
        with capturing():
            out = model.encode(torch.from_numpy(x[i:i + batch]))
        parts.append([None if getattr(it, "channel", False) else it.weights.numpy() for it in out.intermediates])
    return [None if layer[0] is None else np.concatenate(layer) for layer in zip(*parts)]


def figures(model, x: np.ndarray, relevant: np.ndarray, what: str) -> dict:
    """x: (B, C, S, S) normalised; relevant: (B, N_1) bool patches of the first stage. Returns flat figures:
    tokens_per_stage, width_per_stage, attention_pairs_per_layer (query-key pairs computed, summed over heads or
    channel groups: model.analysis.image_cost), their share of global attention with the same heads over the
    first stage's grid in every layer (attention_pairs_vs_global), attention_outside_window (the largest
    weight any token gives a token outside its window; windowed models only), pooled_rollout_on_<what> and
    its _uniform share."""
    from model.analysis.image_cost import attention_pairs
    c = model.config
    layers = captured(model, x)
    masks = model.layer_masks()
    pairs = attention_pairs(model)
    heads = [c.heads[s] for s in model.stage_of_layer]
    out = {"tokens_per_stage": [g * g for g in c.grids], "width_per_stage": list(c.dims),
           "attention_pairs_per_layer": pairs,
           "attention_pairs_vs_global": round(sum(pairs) / sum(h * c.n_patches ** 2 for h in heads), 4)}
    outside = [float(np.abs(w[:, :, ~m]).max()) for w, m in zip(layers, masks)
               if w is not None and m is not None and (~m).any()]
    if outside:
        out["attention_outside_window"] = max(outside)
    rolled = np.stack([pooled(hierarchical_rollout([None if w is None else w[b] for w in layers],
                                                   model.stage_of_layer, c.grids)[-1]) for b in range(len(x))])
    out[f"pooled_rollout_on_{what}"] = round(float((rolled * relevant).sum(-1).mean()), 4)
    out[f"pooled_rollout_on_{what}_uniform"] = round(float(relevant.mean()), 4)
    return out
