"""Attention rollout (Abnar & Zuidema 2020) through a hierarchical model (Swin, DaViT), where patch merging
changes the token count between stages. Nobody publishes one; this is ours:

- inside a stage, as for a ViT: Ã_l = ½·I + ½·mean_h A_l, R_l = Ã_l R_(l−1) (a block without token attention,
  DaViT's channel block, mixes no tokens: Ã_l = I);
- at a merging, each merged token is one ¼ share of each of the 2×2 tokens it concatenates: R ← M R with
  M (N_s/4, N_s) holding ¼ on a merged token's four children (model.architectures.windows.merge_matrix);
- R starts as the identity over the first stage's patches, so every R_l is (N_s(l), N_1): how much of each
  input patch reaches each token after block l. Rows sum to 1. The classifier reads the mean of the last
  stage's tokens, so its rollout is the mean of the last R's rows, (N_1,), which maps onto pixels through the
  first stage's patches."""
import numpy as np

from model.architectures.windows import merge_matrix


def hierarchical_rollout(weights: list, stage_of_layer, grids, residual: float = 0.5) -> list[np.ndarray]:
    """weights: one (H, N_s, N_s) array per layer (None for a layer that mixes no tokens); stage_of_layer: the
    stage of each layer, non-decreasing; grids: tokens per side of each stage, each stage half the one before.
    Returns one (N_s, N_1) float64 array per layer."""
    n1 = grids[0] ** 2
    acc = np.eye(n1)
    stage, out = 0, []
    for w, s in zip(weights, stage_of_layer):
        while stage < s:
            acc = merge_matrix(grids[stage]) @ acc                  # (N_(s+1), N_1)
            stage += 1
        if w is not None:
            a = residual * np.eye(len(acc)) + (1 - residual) * np.asarray(w, dtype=np.float64).mean(0)
            acc = (a / a.sum(-1, keepdims=True)) @ acc
        out.append(acc)
    return out


def pooled(rolled: np.ndarray) -> np.ndarray:
    """(N_last, N_1) -> (N_1,): the rollout of the average-pooled output the classifier reads."""
    return rolled.mean(0)
