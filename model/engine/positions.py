"""Absolute positional encodings: sinusoidal (Vaswani et al. 2017, sec. 3.5) and learned."""
import numpy as np
import torch
from torch import nn


def sinusoidal(n_positions: int, d_model: int) -> np.ndarray:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).

    Returns float64 (n_positions, d_model). d_model must be even.
    """
    if d_model % 2:
        raise ValueError(f"d_model={d_model} must be even for sine/cosine pairs")
    pos = np.arange(n_positions, dtype=np.float64)[:, None]           # (N, 1)
    rate = 10000.0 ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)  # (d/2,)
    pe = np.empty((n_positions, d_model))
    pe[:, 0::2] = np.sin(pos * rate)
    pe[:, 1::2] = np.cos(pos * rate)
    return pe


class PositionalEncoding(nn.Module):
    """Adds positions to token embeddings. kind: "sinusoidal" (a fixed buffer, any length up to
    the table built on demand), "learned" (a table of max_len rows) or "none"."""

    def __init__(self, kind: str, max_len: int, d_model: int):
        super().__init__()
        self.kind, self.max_len, self.d_model = kind, max_len, d_model
        if kind == "learned":
            self.table = nn.Embedding(max_len, d_model)
            nn.init.normal_(self.table.weight, std=0.02)
        elif kind == "sinusoidal":
            self.register_buffer("pe", torch.tensor(sinusoidal(max_len, d_model), dtype=torch.float32),
                                 persistent=False)

    def forward(self, x, offset: int = 0, enabled: bool = True):
        """x: (B, T, C) -> (B, T, C). `enabled=False` switches positions off (order-blindness demo); "relative"
        positions add nothing here (they are a bias on the scores, model.engine.relative_bias)."""
        if self.kind in ("none", "relative") or not enabled:
            return x
        T = x.shape[1]
        if offset + T > self.max_len:
            if self.kind == "learned":
                raise ValueError(f"{offset + T} positions exceed the learned table of max_len={self.max_len}")
            pe = torch.tensor(sinusoidal(offset + T, self.d_model), dtype=x.dtype, device=x.device)
            return x + pe[offset:offset + T]
        if self.kind == "learned":
            return x + self.table(torch.arange(offset, offset + T, device=x.device))
        return x + self.pe[offset:offset + T].to(x.dtype)

    def matrix(self) -> torch.Tensor:
        """The (max_len, C) table that is added, learned or fixed."""
        return self.table.weight if self.kind == "learned" else self.pe


def learned_table(model) -> np.ndarray | None:
    """The learned position table of a model, float32 (rows, C): a text model's `embed.pos` table
    (max_len rows), or a ViT's `pos` parameter (1 + patches rows, <cls> first). None when the model
    has sinusoidal, relative or no positions."""
    pos = getattr(model, "pos", None)
    if isinstance(pos, nn.Parameter):                                   # ViT: (1, 1 + patches, C)
        return pos.detach().reshape(-1, pos.shape[-1]).float().cpu().numpy()
    pos = getattr(getattr(model, "embed", None), "pos", None)
    if not isinstance(pos, PositionalEncoding) or pos.kind != "learned":
        return None
    return pos.matrix().detach().float().cpu().numpy()


@torch.inference_mode()
def added_positions(pos: PositionalEncoding, n_positions: int) -> np.ndarray:
    """What `pos` adds to n_positions token vectors: (n_positions, C). Raises ValueError (the
    engine's own message) when a learned table has fewer than n_positions rows."""
    x = torch.zeros(1, n_positions, pos.d_model)
    return pos(x)[0].double().numpy()
