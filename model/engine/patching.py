"""Activation patching (causal tracing, Meng et al. 2022; Heimersheim & Nanda 2024): inside `patching(edits)`, chosen
states of a forward pass are replaced, at chosen positions, by given values, usually the same states of another run
(the other sentence of a minimal pair). Like `capturing` and `ablating`, the request lives in a context variable
keyed by the modules themselves: a model shared by many threads carries no per-call state, and no flag runs through
the layers.

    with patching({model.encoder: {2: Patch(h_a[2], where)},              # the residual stream entering L2
                   model.encoder.layers[3].self_attn: {("k", 0): Patch(k_a)}}):   # L3 H0's keys
        out = model.encode(ids_b)

Sites: a stack (model.encoder, model.decoder) takes layer indices l = 0 … n_layers: the residual stream entering
layer l (l = n_layers: leaving the last layer, before a pre-LN stack's final LayerNorm), (B, T, C). An attention
module takes ("q", h), ("k", h) or ("z", h): head h's queries (B, Tq, D), keys (B, Tk, D) (after the projection,
before the scores, on every path: the fast one, a kernel, the explicit one) or output z_h = softmax(q·kᵀ/√d_k)·v
before W_O (B, Tq, D), after any ablation. Positions are those of the call (a decoder's cached keys included).
"""
import contextlib
import contextvars
import numbers
from dataclasses import dataclass

import torch

HEAD_SITES = ("q", "k", "z")


@dataclass(frozen=True)
class Patch:
    """value: broadcastable to the state, (B, T, C) for the residual stream, (B, T, D) for one head's q, k or z
    (a (1, T, ·) run broadcasts over the batch); where: bool broadcastable to (B, T), True at the positions
    replaced (one row per batch row: one patch per row is how a layer × position map runs as one batch);
    None replaces every position."""
    value: torch.Tensor
    where: torch.Tensor | None = None


_ACTIVE: contextvars.ContextVar[dict | None] = contextvars.ContextVar("activation_patching", default=None)


def _check(sites: dict):
    for site, patch in sites.items():
        residual = isinstance(site, numbers.Integral) and not isinstance(site, bool)
        head = (isinstance(site, tuple) and len(site) == 2 and site[0] in HEAD_SITES
                and isinstance(site[1], numbers.Integral))
        if not (residual or head):
            raise ValueError(f"a patch site is a layer index (the residual stream) or (site, head) with site one of "
                             f"{HEAD_SITES}; got {site!r}")
        if not isinstance(patch, Patch):
            raise ValueError(f"site {site!r}: expected a Patch(value, where), got {type(patch).__name__}")


@contextlib.contextmanager
def patching(edits: dict):
    """edits: {stack: {layer: Patch}, attention module: {(site, head): Patch}}. Every call of those modules inside
    the block has those states replaced where the patch says; everything else runs as usual."""
    for sites in edits.values():
        _check(sites)
    token = _ACTIVE.set(dict(edits) or None)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def _replace(t: torch.Tensor, patch: Patch) -> torch.Tensor:
    """t (B, T, X) with patch.value where patch.where (a new tensor)."""
    value = patch.value.to(device=t.device, dtype=t.dtype)
    if patch.where is None:
        return value.expand_as(t).clone()
    where = patch.where.to(t.device)
    return torch.where(where[..., None], value, t)


def residual(stack, layer: int, x: torch.Tensor) -> torch.Tensor:
    """x: (B, T, C) the residual stream entering `layer` of `stack` -> the same, patched if asked (else x itself)."""
    edits = _ACTIVE.get()
    sites = edits.get(stack) if edits else None
    patch = sites.get(layer) if sites else None
    return x if patch is None else _replace(x, patch)


def heads(module, site: str, t: torch.Tensor) -> torch.Tensor:
    """t: (B, H, T, D) the heads' q, k or z of attention `module` -> the same with the requested heads patched
    (a copy), or t itself when nothing is asked."""
    edits = _ACTIVE.get()
    sites = edits.get(module) if edits else None
    if not sites:
        return t
    chosen = [(key[1], p) for key, p in sites.items() if isinstance(key, tuple) and key[0] == site]
    if not chosen:
        return t
    t = t.clone()
    for h, patch in chosen:
        t[:, h] = _replace(t[:, h], patch)
    return t
