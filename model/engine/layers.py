"""The Transformer layer as the course teaches it: sub-layer, residual, LayerNorm ("Add & Norm",
post-LN as in Vaswani et al. 2017), or pre-LN as an option; a position-wise FFN."""
import torch.nn.functional as F
from torch import nn

from model.engine.attention import MultiHeadAttention
from model.engine.config import ModelConfig

ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}     # GELU in its exact erf form, as BERT


class FeedForward(nn.Module):
    """FFN(x) = act(x W1 + b1) W2 + b2, applied to each position alone. (B, T, C) -> (B, T, C)."""

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", dropout: float = 0.0):
        super().__init__()
        self.lin1, self.lin2 = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model)
        self.act = ACTIVATIONS[activation]
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return self.lin2(self.drop(self.act(self.lin1(x))))


class Block(nn.Module):
    """One layer: masked self-attention, optional cross-attention, FFN (none when config.ffn is False: an
    attention-only layer); each wrapped in Add & Norm."""

    def __init__(self, config: ModelConfig, cross: bool = False, kernel=None):
        super().__init__()
        c = config
        self.pre = c.norm == "pre"
        self.self_attn = MultiHeadAttention(c.d_model, c.n_heads, dropout=c.dropout, kernel=kernel)
        self.norm1 = nn.LayerNorm(c.d_model, eps=c.norm_eps)
        self.cross_attn = MultiHeadAttention(c.d_model, c.n_heads, dropout=c.dropout) if cross else None
        self.norm_cross = nn.LayerNorm(c.d_model, eps=c.norm_eps) if cross else None
        self.ffn = FeedForward(c.d_model, c.d_ff, c.activation, c.dropout) if c.ffn else None
        self.norm2 = nn.LayerNorm(c.d_model, eps=c.norm_eps) if c.ffn else None
        self.drop = nn.Dropout(c.dropout)

    def _sublayer(self, x, norm, fn):
        if self.pre:                       # x + f(LN(x))
            y, inter = fn(norm(x))
            return x + self.drop(y), inter
        y, inter = fn(x)                   # LN(x + f(x))
        return norm(x + self.drop(y)), inter

    def forward(self, x, mask=None, memory=None, memory_mask=None, kv_cache=None, bias=None):
        """x: (B, T, C); memory: (B, S, C) encoder output for cross-attention; bias: (H, T, Tk) added to the
        self-attention scores (a relative-position bias) or None.
        Returns (x, self-attention Intermediates | None, cross-attention Intermediates | None)."""
        x, inter = self._sublayer(x, self.norm1,
                                  lambda h: self.self_attn(h, mask=mask, kv_cache=kv_cache, bias=bias))
        cross = None
        if self.cross_attn is not None:
            x, cross = self._sublayer(x, self.norm_cross,
                                      lambda h: self.cross_attn(h, context=memory, mask=memory_mask))
        if self.ffn is not None:
            x, _ = self._sublayer(x, self.norm2, lambda h: (self.ffn(h), None))
        return x, inter, cross
