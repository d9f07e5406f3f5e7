"""The one plain object a run hands to pages and viz: numpy arrays and lists, no tensors."""
from dataclasses import dataclass, field

import numpy as np


@dataclass
class AttentionRun:
    """tokens: N strings as shown; weights: (L, H, N, N) float32, rows sum to 1 over allowed keys.

    Optional: ids (N,), unknown (N,) flags for out-of-vocabulary pieces; q, k, v: (L, H, N, D);
    scores: (L, H, N, N) scaled pre-softmax (-inf where masked); hidden: (L + 1, N, C), the layer
    inputs then outputs; logits: (N, V); for encoder-decoder runs, src_tokens and cross_weights
    (L, H, Nt, Ns) and enc_weights (L, H, Ns, Ns); extra: anything else a page needs.
    """
    tokens: list[str]
    weights: np.ndarray
    ids: np.ndarray | None = None
    unknown: list[bool] = field(default_factory=list)
    q: np.ndarray | None = None
    k: np.ndarray | None = None
    v: np.ndarray | None = None
    scores: np.ndarray | None = None
    hidden: np.ndarray | None = None
    logits: np.ndarray | None = None
    src_tokens: list[str] | None = None
    cross_weights: np.ndarray | None = None
    enc_weights: np.ndarray | None = None
    notices: list[str] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def n_layers(self) -> int:
        return self.weights.shape[0]

    @property
    def n_heads(self) -> int:
        return self.weights.shape[1]
