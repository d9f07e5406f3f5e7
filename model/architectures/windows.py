"""Swin's window machinery (Liu et al. 2021, sec. 3.2): cut a grid of tokens into window × window windows,
the cyclic shift by window // 2 with its attention mask, the relative-position index of a window, and patch
merging (each 2×2 group of tokens concatenated, 4C -> 2C). Torch for the model, numpy for the tests and pages."""
import numpy as np
import torch
from torch import nn


def stage_window(grid: int, window: int) -> tuple[int, int]:
    """(window, shift) a stage of `grid`×`grid` tokens uses: as published, a grid no larger than the window is one
    window and is not shifted; otherwise shift = window // 2 on every other block."""
    if grid <= window:
        return grid, 0
    return window, window // 2


def partition(x: torch.Tensor, window: int) -> torch.Tensor:
    """(B, G, G, C) -> (B·nW, window², C), windows in row-major order, tokens row-major inside each."""
    B, G, _, C = x.shape
    n = G // window
    x = x.view(B, n, window, n, window, C).permute(0, 1, 3, 2, 4, 5)         # (B, n, n, w, w, C)
    return x.reshape(B * n * n, window * window, C)


def unpartition(windows: torch.Tensor, window: int, grid: int) -> torch.Tensor:
    """(B·nW, window², C) -> (B, G, G, C), the inverse of `partition`."""
    n = grid // window
    C = windows.shape[-1]
    x = windows.view(-1, n, n, window, window, C).permute(0, 1, 3, 2, 4, 5)  # (B, n, w, n, w, C)
    return x.reshape(-1, grid, grid, C)


def shift_mask(grid: int, window: int, shift: int) -> np.ndarray:
    """(nW, window², window²) bool, True = may attend, for windows cut from the grid rolled by −shift (Swin's
    published mask): the rolled grid is labelled in 3 × 3 regions (rows and columns cut at G − window and
    G − shift) and a token attends only tokens of its own region, so tokens that the roll brought together from
    opposite borders never see each other. shift = 0: every window is whole (all True)."""
    labels = np.zeros((grid, grid), dtype=np.int64)
    if shift:
        cuts = (slice(0, grid - window), slice(grid - window, grid - shift), slice(grid - shift, grid))
        for i, rows in enumerate(cuts):
            for j, cols in enumerate(cuts):
                labels[rows, cols] = 3 * i + j
    n = grid // window
    win = labels.reshape(n, window, n, window).transpose(0, 2, 1, 3).reshape(n * n, window * window)
    return win[:, :, None] == win[:, None, :]


def window_tokens(grid: int, window: int, shift: int) -> np.ndarray:
    """(nW, window²) int: the row-major grid index of the token in each slot of each window after the cyclic
    shift by −shift (what `partition(roll(x))` puts where)."""
    idx = np.roll(np.arange(grid * grid).reshape(grid, grid), (-shift, -shift), axis=(0, 1))
    n = grid // window
    return idx.reshape(n, window, n, window).transpose(0, 2, 1, 3).reshape(n * n, window * window)


def full_matrix(win: np.ndarray, grid: int, window: int, shift: int) -> np.ndarray:
    """Per-window matrices (..., nW, w², w²) -> (..., N, N) over the row-major grid (N = grid²), zero between
    tokens of different windows: what each token gives every token of the image."""
    tokens = window_tokens(grid, window, shift)                              # (nW, w²)
    out = np.zeros((*win.shape[:-3], grid * grid, grid * grid), dtype=win.dtype)
    for w, ids in enumerate(tokens):
        out[..., ids[:, None], ids[None, :]] = win[..., w, :, :]
    return out


def relative_index(window: int) -> torch.Tensor:
    """(w², w²) int64: index into a ((2w−1)², H) bias table of the offset (Δrow, Δcol) between two tokens of a
    window, (Δrow + w − 1)·(2w − 1) + Δcol + w − 1 (Swin's relative_position_index). Built in numpy: a model
    built on the meta device (model.checkpoints) does no tensor arithmetic."""
    r, c = np.divmod(np.arange(window * window), window)
    index = (r[:, None] - r[None, :] + window - 1) * (2 * window - 1) + c[:, None] - c[None, :] + window - 1
    return torch.from_numpy(index.astype(np.int64))


class PatchMerging(nn.Module):
    """(B, G, G, C) -> (B, G/2, G/2, 2C): each 2×2 group of tokens concatenated in Swin's order (top-left,
    bottom-left, top-right, bottom-right), LayerNorm over 4C, a linear map 4C -> 2C without bias."""

    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(4 * dim)
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x):
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], dim=-1)
        return self.reduction(self.norm(x))                                   # (B, G/2, G/2, 2C)


def merge_matrix(grid: int) -> np.ndarray:
    """(N/4, N) float: row j has ¼ on the four tokens of the grid that merged token j covers (its 2×2 group),
    row-major on both grids. How rollout passes through a merging (model.analysis.hierarchical_rollout)."""
    half = grid // 2
    out = np.zeros((half * half, grid * grid))
    for j in range(half * half):
        r, c = divmod(j, half)
        for dr in (0, 1):
            for dc in (0, 1):
                out[j, (2 * r + dr) * grid + 2 * c + dc] = 0.25
    return out
