"""Head ablation: inside `ablating(edits)`, chosen heads' outputs z_h = softmax(q·kᵀ/√d_k)·v (before W_O) are
replaced, by zeros (zero ablation: the head adds nothing; W_O's bias, shared by all heads, stays) or by a fixed
vector (mean ablation: the head's average output, so the layer still gets a typical value from it; Michel et al.
2019, Wang et al. 2022). The request lives in a context variable keyed by the attention modules themselves, as
`capturing` does: a model shared by many threads carries no per-call state, and no flag runs through the layers.

    with ablating({model.encoder.layers[3].self_attn: {0: None}}):     # L3 H0 zeroed
        out = model.encode(ids)
"""
import contextlib
import contextvars

import torch

_ACTIVE: contextvars.ContextVar[dict | None] = contextvars.ContextVar("head_ablation", default=None)


@contextlib.contextmanager
def ablating(edits: dict):
    """edits: {attention module: {head: None (zeros) or a tensor broadcastable to (B, T, D) (a mean)}}.
    Every call of those modules inside the block has those heads' outputs replaced."""
    token = _ACTIVE.set(dict(edits) or None)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def edit(module, y: torch.Tensor) -> torch.Tensor:
    """y: (B, H, T, D) the heads' outputs of `module` -> the same, with the requested heads replaced (a copy)."""
    edits = _ACTIVE.get()
    heads = edits.get(module) if edits else None
    if not heads:
        return y
    y = y.clone()
    for h, value in heads.items():
        y[:, h] = 0.0 if value is None else value.to(y.dtype)
    return y
