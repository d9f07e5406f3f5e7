"""A learned relative-position bias (Shaw et al. 2018; T5, Raffel et al. 2020): one scalar per head for each
offset j − i between a key and a query, offsets beyond ±max_offset clipped to the last one, added to the
attention scores before the softmax. One table serves every layer, as in T5. The textbook's π_{a,b}: a
parameter learned per offset, not per position."""
import numpy as np
import torch
from torch import nn


def offset_index(n_q: int, n_k: int, max_offset: int, q_start: int = 0, device=None) -> torch.Tensor:
    """(n_q, n_k) int64: column of the table for query i (at position q_start + i) and key j,
    clamp(j − (q_start + i), −K, K) + K with K = max_offset."""
    q = torch.arange(q_start, q_start + n_q, device=device)[:, None]    # (n_q, 1)
    k = torch.arange(n_k, device=device)[None, :]                        # (1, n_k)
    return (k - q).clamp(-max_offset, max_offset) + max_offset


class RelativePositionBias(nn.Module):
    """table: (H, 2K + 1), column c holds offset c − K. forward(n_q, n_k, q_start) -> (H, n_q, n_k)."""

    def __init__(self, n_heads: int, max_offset: int):
        super().__init__()
        if max_offset < 1:
            raise ValueError(f"max_offset={max_offset} must be at least 1")
        self.max_offset = max_offset
        self.table = nn.Parameter(torch.zeros(n_heads, 2 * max_offset + 1))   # no preference at the start

    def forward(self, n_q: int, n_k: int, q_start: int = 0) -> torch.Tensor:
        idx = offset_index(n_q, n_k, self.max_offset, q_start, self.table.device)
        return self.table[:, idx]                                        # (H, n_q, n_k)

    def offsets(self) -> np.ndarray:
        """The offsets of the table's columns, −K..K."""
        return np.arange(-self.max_offset, self.max_offset + 1)
