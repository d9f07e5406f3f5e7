"""One picture for many numbers: several query tokens' rows combined, and heads and layers summarised by their
mean, their maximum or attention rollout (Abnar & Zuidema 2020). Each summary keeps something and hides
something; the page says which."""
import numpy as np

from model.analysis.attention_views import rollout

SUMMARIES = ("mean", "max", "all_mean", "rollout")


def combined_rows(weights: np.ndarray, queries) -> np.ndarray:
    """(L, H, N, N) weights and Q query indices -> (L, H, N): the mean of those queries' rows (sums to 1)."""
    queries = list(queries)
    if not queries:
        raise ValueError("pick at least one query token")
    return np.asarray(weights, np.float64)[:, :, queries, :].mean(2)


def summarise(weights: np.ndarray, how: str, layer: int) -> np.ndarray:
    """(L, H, N, N) -> (N, N): "mean" or "max" over the heads of `layer` (max rows no longer sum to 1),
    "all_mean" over every layer and head, "rollout" through `layer` (rows sum to 1)."""
    w = np.asarray(weights, np.float64)
    if how == "mean":
        return w[layer].mean(0)
    if how == "max":
        return w[layer].max(0)
    if how == "all_mean":
        return w.mean((0, 1))
    if how == "rollout":
        return rollout(w)[layer]
    raise ValueError(f"unknown summary {how!r}; choose from {SUMMARIES}")
