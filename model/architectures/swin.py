"""Swin-style ViT (Liu et al. 2021): each patch attends only inside its window of window×window
patches, and every other layer the windows shift by window // 2 so information crosses window borders.
Swin's cyclic shift plus its attention mask is the same as windows offset by the shift with smaller
windows at the borders; that is what the masks here say. <cls> stays global (it reads and is read by
every patch). No patch merging: every layer keeps the same N tokens, so maps stay comparable to the ViT's."""
import numpy as np
import torch

from model.architectures.vit import ViT, ViTConfig
from model.engine.masks import swin_window_ids, swin_window_mask


def window_ids(grid: tuple[int, int], window: int, shift: int = 0) -> np.ndarray:
    """(gh, gw) int: the window each patch belongs to (model.engine.masks.swin_window_ids on the grid)."""
    return swin_window_ids(grid[0], grid[1], window, shift).reshape(grid)


def window_mask(grid: tuple[int, int], window: int, shift: int = 0) -> np.ndarray:
    """(N, N) bool over row-major patches, True = may attend: same (shifted) window
    (model.engine.masks.swin_window_mask, the mask the masks page draws)."""
    return swin_window_mask(grid[0], grid[1], window, shift)


def with_cls(mask: np.ndarray) -> np.ndarray:
    """(N, N) patch mask -> (N+1, N+1) with a global <cls> token first."""
    n = mask.shape[0]
    out = np.ones((n + 1, n + 1), dtype=bool)
    out[1:, 1:] = mask
    return out


def layer_shifts(n_layers: int, window: int) -> list[int]:
    """0 on even layers, window // 2 on odd ones."""
    return [0 if i % 2 == 0 else window // 2 for i in range(n_layers)]


class SwinViT(ViT):
    """The ViT with windowed attention; config.window must be set."""

    def __init__(self, config: ViTConfig):
        if not config.window:
            raise ValueError("SwinViT needs config window ≥ 2 (patches per window side)")
        super().__init__(config)
        c = config
        masks = [with_cls(window_mask(c.grid, c.window, s)) for s in layer_shifts(c.n_layers, c.window)]
        self.register_buffer("masks", torch.from_numpy(np.stack(masks)), persistent=False)   # (L, N+1, N+1)

    @classmethod
    def from_config(cls, config: dict) -> "SwinViT":
        return cls(ViTConfig.from_dict(config))

    def layer_masks(self, device=None) -> list[torch.Tensor]:
        m = self.masks if device is None else self.masks.to(device)
        return list(m)
