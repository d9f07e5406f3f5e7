"""Multi-head scaled dot-product attention (Vaswani et al. 2017, eq. 1): softmax(QKᵀ/√d_k)V.

Two paths: a fast one (`F.scaled_dot_product_attention`, or a kernel given at construction) for training
and whenever nobody looks, and an explicit one, taken inside `model.engine.capture.capturing()`, that also
returns the weights (and, on request, q, k, v, scores). On every path, heads named in an enclosing
`model.engine.ablation.ablating()` block have their outputs replaced before W_O, and states named in an enclosing
`model.engine.patching.patching()` block (a head's q, k or output) are replaced by the given values.
Masks are boolean "may attend" tensors (True = may attend), broadcastable to (B, H, Tq, Tk); a bias is a float
tensor added to the scaled scores before the softmax (a learned relative-position bias), broadcastable the same way.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

from model.engine.ablation import edit
from model.engine.capture import Intermediates, active
from model.engine.patching import heads as patched


def attention(q, k, v, mask=None, bias=None):
    """Explicit scaled dot-product attention, softmax(QKᵀ/√d_k + bias).

    q: (B, H, Tq, D); k, v: (B, H, Tk, D); mask: bool, True = may attend, broadcastable to
    (B, H, Tq, Tk); bias: float, broadcastable the same way, or None. Returns out (B, H, Tq, D),
    weights (B, H, Tq, Tk), scores (B, H, Tq, Tk) (scaled, bias added). A fully masked row gives zero
    weights (not NaN).
    """
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))   # (B, H, Tq, Tk)
    if bias is not None:
        scores = scores + bias
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.nan_to_num(0.0)
    return weights @ v, weights, scores


def attention_into(q, k, v, mask=None, out=None, bias=None):
    """The explicit path without keeping the scores: the same softmax(QKᵀ/√d_k)V, with the scores
    computed by one fused baddbmm straight into `out` and masked and softmaxed there in place (no
    temporaries of size N², about half the cost of `attention` at N = 512 on CPU).

    q: (B, H, Tq, D); k, v: (B, H, Tk, D); mask and bias as in `attention`; out: optional contiguous float
    (B, H, Tq, Tk) buffer that receives the weights. Returns out (B, H, Tq, D), weights (B, H, Tq, Tk).
    """
    B, H, Tq, D = q.shape
    Tk = k.shape[-2]
    w = out if out is not None else q.new_empty(B, H, Tq, Tk)
    w3 = w.view(B * H, Tq, Tk)
    torch.baddbmm(w3, q.reshape(B * H, Tq, D), k.reshape(B * H, Tk, D).transpose(1, 2),
                  beta=0, alpha=1.0 / math.sqrt(D), out=w3)              # (B·H, Tq, Tk) scaled scores
    if bias is not None:
        w.add_(bias)
    if mask is not None:
        w.masked_fill_(mask.logical_not(), float("-inf"))
    torch.ops.aten._softmax.out(w, -1, False, out=w)                      # in place, row-wise
    if mask is not None and not bool(mask.any(-1).all()):
        w.nan_to_num_(0.0)                                                 # fully masked rows -> 0, not NaN
    return w @ v, w


class MultiHeadAttention(nn.Module):
    """Self- or cross-attention: queries from x, keys and values from `context` (default x).

    kernel: optional fast-path attention kernel(q, k, v) -> (B, H, Tq, D) (e.g. the sliding window of
    model.engine.sparse), used when no mask, cache or capture is asked for."""

    def __init__(self, d_model: int, n_heads: int, bias: bool = True, dropout: float = 0.0, kernel=None):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must split evenly across n_heads={n_heads}")
        self.n_heads, self.head_dim = n_heads, d_model // n_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = dropout
        self.kernel = kernel

    def split_heads(self, x):
        B, T, C = x.shape
        return x.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)   # (B, H, T, D)

    def merge_heads(self, x):
        B, H, T, D = x.shape
        return x.transpose(1, 2).reshape(B, T, H * D)                       # (B, T, C)

    @staticmethod
    def _float_mask(mask, bias):
        """The attn_mask for F.scaled_dot_product_attention: the boolean mask alone, or the bias with −inf
        where the mask forbids (a float attn_mask is added to the scores)."""
        if bias is None:
            return mask
        return bias if mask is None else bias.masked_fill(~mask, float("-inf"))

    def _z(self, y):
        """The heads' outputs (B, H, Tq, D) after any ablation, then any patch."""
        return patched(self, "z", edit(self, y))

    def forward(self, x, context=None, mask=None, kv_cache=None, bias=None):
        """x: (B, Tq, C); context: (B, Tk, C) or None; mask: bool (Tq, Tk) or broadcastable; bias: float
        (H, Tq, Tk) or broadcastable to (B, H, Tq, Tk), added to the scaled scores, or None.

        kv_cache: optional dict; when given, new keys/values are appended to cache["k"], cache["v"]
        (incremental decoding). Returns (out (B, Tq, C), Intermediates inside `capturing()`, else None).
        """
        src = x if context is None else context
        q = self.split_heads(self.w_q(x))
        k, v = self.split_heads(self.w_k(src)), self.split_heads(self.w_v(src))   # (B, H, Tk, D)
        if kv_cache is not None:
            if "k" in kv_cache:
                k = torch.cat([kv_cache["k"], k], dim=2)
                v = torch.cat([kv_cache["v"], v], dim=2)
            kv_cache["k"], kv_cache["v"] = k, v
        q, k = patched(self, "q", q), patched(self, "k", k)
        request = active()
        if request is None:
            if self.kernel is not None and mask is None and kv_cache is None and bias is None:
                return self.w_o(self.merge_heads(self._z(self.kernel(q, k, v)))), None
            p = self.dropout if self.training else 0.0
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=self._float_mask(mask, bias), dropout_p=p)
            return self.w_o(self.merge_heads(self._z(y))), None
        if request.weights_only and not torch.is_grad_enabled():     # in-place ops: inference only
            shape = (q.shape[0], self.n_heads, q.shape[2], k.shape[2])
            y, weights = attention_into(q, k, v, mask, out=request.buffer_for(shape), bias=bias)
            return self.w_o(self.merge_heads(self._z(y))), Intermediates(weights=weights)
        y, weights, scores = attention(q, k, v, mask, bias)
        kept = {name: t for name, t in (("q", q), ("k", k), ("v", v), ("scores", scores)) if name in request.keep}
        return self.w_o(self.merge_heads(self._z(y))), Intermediates(weights=weights, **kept)
