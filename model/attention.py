"""Multi-head scaled dot-product attention (Vaswani et al. 2017, eq. 1): softmax(QKᵀ/√d_k)V.

Two paths: a fast one (`F.scaled_dot_product_attention`) for training and whenever nobody
looks, and an explicit one that also returns the weights (and, on request, q, k, v, scores).
Masks are boolean "may attend" tensors (True = may attend), broadcastable to (B, H, Tq, Tk).
"""
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class AttentionCapture:
    """What one attention call exposes. weights: (B, H, Tq, Tk); q: (B, H, Tq, D); k, v: (B, H, Tk, D)."""
    weights: torch.Tensor
    q: torch.Tensor | None = None
    k: torch.Tensor | None = None
    v: torch.Tensor | None = None
    scores: torch.Tensor | None = None   # scaled, masked with -inf, before softmax


def attention(q, k, v, mask=None):
    """Explicit scaled dot-product attention.

    q: (B, H, Tq, D); k, v: (B, H, Tk, D); mask: bool, True = may attend, broadcastable to
    (B, H, Tq, Tk). Returns out (B, H, Tq, D), weights (B, H, Tq, Tk), scores (B, H, Tq, Tk).
    A fully masked row gives zero weights (not NaN).
    """
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))   # (B, H, Tq, Tk)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.nan_to_num(0.0)
    return weights @ v, weights, scores


class MultiHeadAttention(nn.Module):
    """Self- or cross-attention: queries from x, keys and values from `context` (default x)."""

    def __init__(self, d_model: int, n_heads: int, bias: bool = True, dropout: float = 0.0):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must split evenly across n_heads={n_heads}")
        self.n_heads, self.head_dim = n_heads, d_model // n_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = dropout
        # optional fast-path kernel attn_fn(q, k, v) -> (B, H, Tq, D), used when no mask, cache or capture
        # is asked for (e.g. model.sparse_attention.SlidingWindow); set once at construction, never per call
        self.attn_fn = None

    def split_heads(self, x):
        B, T, C = x.shape
        return x.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)   # (B, H, T, D)

    def merge_heads(self, x):
        B, H, T, D = x.shape
        return x.transpose(1, 2).reshape(B, T, H * D)                       # (B, T, C)

    def forward(self, x, context=None, mask=None, capture=False, keep_qkv=False, kv_cache=None):
        """x: (B, Tq, C); context: (B, Tk, C) or None; mask: bool (Tq, Tk) or broadcastable.

        kv_cache: optional dict; when given, new keys/values are appended to cache["k"], cache["v"]
        (incremental decoding). Returns (out (B, Tq, C), AttentionCapture or None).
        """
        src = x if context is None else context
        q = self.split_heads(self.w_q(x))
        k, v = self.split_heads(self.w_k(src)), self.split_heads(self.w_v(src))   # (B, H, Tk, D)
        if kv_cache is not None:
            if "k" in kv_cache:
                k = torch.cat([kv_cache["k"], k], dim=2)
                v = torch.cat([kv_cache["v"], v], dim=2)
            kv_cache["k"], kv_cache["v"] = k, v
        if not capture and self.attn_fn is not None and mask is None and kv_cache is None:
            return self.w_o(self.merge_heads(self.attn_fn(q, k, v))), None
        if not capture:
            p = self.dropout if self.training else 0.0
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
            return self.w_o(self.merge_heads(y)), None
        y, weights, scores = attention(q, k, v, mask)
        cap = AttentionCapture(weights=weights)
        if keep_qkv:
            cap.q, cap.k, cap.v, cap.scores = q, k, v, scores
        return self.w_o(self.merge_heads(y)), cap
