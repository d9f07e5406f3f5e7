"""Encoder, decoder and encoder-decoder stacks built from one ModelConfig (nanoGPT-style).

kind="encoder": token embedding + positions -> encoder stack -> LM head (BERT-style, masked LM).
kind="decoder": the same with a causal mask (GPT-style, next-token LM).
kind="encoder_decoder": encoder over the source; decoder with masked self-attention and
cross-attention over the encoder output (translation).
"""
from dataclasses import dataclass, field

import torch
from torch import nn

from model.engine.capture import active
from model.engine.config import ModelConfig
from model.engine.layers import Block
from model.engine.patching import residual
from model.engine.positions import PositionalEncoding
from model.engine.relative_bias import RelativePositionBias


def causal_mask(T: int, device=None, offset: int = 0) -> torch.Tensor:
    """(T, offset + T) bool, True = may attend: query i sees keys 0..offset + i."""
    return torch.ones(T, offset + T, dtype=torch.bool, device=device).tril(diagonal=offset)


def with_causal(mask, causal: torch.Tensor):
    """`mask` (None, one bool mask, or a list with one per layer) AND the causal (T, offset + T) mask."""
    if mask is None:
        return causal
    if isinstance(mask, (list, tuple)):
        return [causal if m is None else m & causal for m in mask]
    return mask & causal


@dataclass
class StackOutput:
    """x: (B, T, C) final hidden. Inside `capturing()`: hidden, n_layers + 1 tensors (B, T, C) with the
    input first; intermediates and cross_intermediates, one Intermediates per layer (cross: None without
    cross-attention). Outside: empty lists."""
    x: torch.Tensor
    hidden: list = field(default_factory=list)
    intermediates: list = field(default_factory=list)
    cross_intermediates: list = field(default_factory=list)


class Stack(nn.Module):
    """n_layers Blocks; pre-LN stacks end with a final LayerNorm. kernel: optional fast-path attention
    kernel given to every self-attention (see MultiHeadAttention)."""

    def __init__(self, config: ModelConfig, n_layers: int, cross: bool = False, kernel=None):
        super().__init__()
        self.layers = nn.ModuleList(Block(config, cross=cross, kernel=kernel) for _ in range(n_layers))
        self.final_norm = nn.LayerNorm(config.d_model, eps=config.norm_eps) if config.norm == "pre" else nn.Identity()

    def forward(self, x, mask=None, memory=None, memory_mask=None, kv_caches=None, bias=None) -> StackOutput:
        """mask: one bool mask for all layers, or a list with one per layer (Swin, sparse); bias: one float
        (H, T, Tk) relative-position bias added to every layer's self-attention scores, or None. Inside
        `patching()`, the residual stream entering layer l (l = n_layers: leaving the last) is patched where asked."""
        keep = active() is not None
        x = residual(self, 0, x)
        out = StackOutput(x=x, hidden=[x] if keep else [])
        for i, layer in enumerate(self.layers):
            m = mask[i] if isinstance(mask, (list, tuple)) else mask
            cache = kv_caches[i] if kv_caches is not None else None
            x, inter, cross = layer(x, mask=m, memory=memory, memory_mask=memory_mask, kv_cache=cache, bias=bias)
            x = residual(self, i + 1, x)
            if keep:
                out.hidden.append(x)
                out.intermediates.append(inter)
                out.cross_intermediates.append(cross)
        out.x = self.final_norm(x)
        return out


class Embedder(nn.Module):
    """Token lookup + positions (+ BERT's token type 0 and LayerNorm, where the config has them).
    ids (B, T) -> (B, T, C)."""

    def __init__(self, vocab_size: int, config: ModelConfig):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, config.d_model)
        nn.init.normal_(self.tok.weight, std=0.02)
        self.pos = PositionalEncoding(config.pos_encoding, config.max_len, config.d_model)
        self.types = nn.Embedding(config.type_vocab_size, config.d_model) if config.type_vocab_size else None
        self.norm = nn.LayerNorm(config.d_model, eps=config.norm_eps) if config.embed_norm else nn.Identity()
        self.drop = nn.Dropout(config.dropout)

    def forward(self, ids, offset: int = 0, positions: bool = True):
        x = self.pos(self.tok(ids), offset=offset, enabled=positions)
        if self.types is not None:                 # every token is of type 0: one text, one segment
            x = x + self.types.weight[0]
        return self.drop(self.norm(x))


class Transformer(nn.Module):
    """The whole model. ids: (B, T) int64 -> logits (B, T, vocab)."""

    def __init__(self, config: ModelConfig, kernel=None):
        super().__init__()
        self.config = c = config
        self.embed = Embedder(c.vocab_size, c)
        if c.kind == "encoder_decoder":
            self.encoder = Stack(c, c.n_layers, kernel=kernel)
            self.tgt_embed = Embedder(c.tgt_vocab_size or c.vocab_size, c)
            self.decoder = Stack(c, c.n_dec_layers or c.n_layers, cross=True)
            out_vocab = c.tgt_vocab_size or c.vocab_size
        else:
            self.encoder = Stack(c, c.n_layers, kernel=kernel)
            out_vocab = c.vocab_size
        self.lm_head = nn.Linear(c.d_model, out_vocab) if c.lm_head else None
        # pos_encoding="relative": nothing is added to the embeddings; one learned bias per head and offset
        # goes into every layer's scores instead
        self.rel_bias = RelativePositionBias(c.n_heads, c.max_offset) if c.pos_encoding == "relative" else None

    @classmethod
    def from_config(cls, config: dict) -> "Transformer":
        return cls(ModelConfig.from_dict(config))

    @property
    def model_kind(self) -> str:
        """The kind checkpoints write into meta["kind"] (model.kinds): the config's."""
        return self.config.kind

    def pattern_mask(self, n: int, device=None) -> torch.Tensor | None:
        """The (n, n) bool "may attend" pattern the model applies by itself beyond causality; None: every pair."""
        return None

    # ---- encoder / decoder-only -------------------------------------------------------------
    def encode(self, ids, mask=None, positions=True, kv_caches=None, offset=0) -> StackOutput:
        """Run the (self-attention) stack. ids: (B, T); mask: bool "may attend", broadcastable to
        (B, H, T, offset + T), or a list with one per layer. For kind="decoder" the causal mask is always
        combined with it (a padding mask, a pattern): a decoder never sees the future, whatever a caller
        passes. positions=False also leaves out a relative bias. Returns StackOutput with x (B, T, C)."""
        T = ids.shape[1]
        if self.config.kind == "decoder":
            mask = with_causal(mask, causal_mask(T, ids.device, offset=offset))
        x = self.embed(ids, offset=offset, positions=positions)
        bias = self.rel_bias(T, offset + T, q_start=offset) if self.rel_bias is not None and positions else None
        return self.encoder(x, mask=mask, kv_caches=kv_caches, bias=bias)

    # ---- encoder-decoder ----------------------------------------------------------------------
    def decode(self, tgt_ids, memory, memory_mask=None, kv_caches=None, offset=0) -> StackOutput:
        """Decoder over target ids (B, Tt) with cross-attention to memory (B, S, C)."""
        mask = causal_mask(tgt_ids.shape[1], tgt_ids.device, offset=offset)
        y = self.tgt_embed(tgt_ids, offset=offset)
        return self.decoder(y, mask=mask, memory=memory, memory_mask=memory_mask, kv_caches=kv_caches)

    def forward(self, ids, tgt_ids=None, mask=None, memory_mask=None):
        """Fast path. Encoder/decoder: logits (B, T, V), or the final states (B, T, C) of a model without an
        LM head. Encoder-decoder: logits (B, Tt, V_tgt)."""
        enc = self.encode(ids, mask=mask)
        if self.config.kind != "encoder_decoder":
            return enc.x if self.lm_head is None else self.lm_head(enc.x)
        return self.lm_head(self.decode(tgt_ids, enc.x, memory_mask=memory_mask).x)
