"""Cutting an image into non-overlapping square patches and putting them back (ViT, Dosovitskiy et al.
2021, sec. 3.1): x ∈ R^{C×H×W} -> N = (H/P)(W/P) vectors of length C·P², patches in row-major order."""
import numpy as np
import torch


def grid_size(image_size: tuple[int, int] | int, patch_size: int) -> tuple[int, int]:
    """(rows, cols) of the patch grid; the image sides must be multiples of patch_size."""
    h, w = (image_size, image_size) if isinstance(image_size, int) else image_size
    if patch_size < 1 or h % patch_size or w % patch_size:
        raise ValueError(f"image {h}×{w} does not split into {patch_size}×{patch_size} patches")
    return h // patch_size, w // patch_size


def num_patches(image_size: tuple[int, int] | int, patch_size: int) -> int:
    gh, gw = grid_size(image_size, patch_size)
    return gh * gw


def _permute(x, dims):
    return x.permute(*dims) if isinstance(x, torch.Tensor) else np.transpose(x, dims)


def patchify(x, patch_size: int):
    """x: (..., C, H, W) numpy array or tensor -> (..., N, C·P·P); patch n = (row n // gw, col n % gw),
    each flattened channel first, then pixel rows, then pixel columns."""
    *lead, c, h, w = x.shape
    gh, gw = grid_size((h, w), patch_size)
    p = patch_size
    y = x.reshape(-1, c, gh, p, gw, p)                       # (B, C, gh, P, gw, P)
    y = _permute(y, (0, 2, 4, 1, 3, 5))                      # (B, gh, gw, C, P, P)
    return y.reshape(*lead, gh * gw, c * p * p)


def unpatchify(patches, patch_size: int, grid: tuple[int, int], channels: int):
    """Inverse of patchify. patches: (..., N, C·P·P) -> (..., C, H, W)."""
    *lead, n, d = patches.shape
    gh, gw = grid
    p = patch_size
    if n != gh * gw or d != channels * p * p:
        raise ValueError(f"{n} patches of length {d} do not make a {gh}×{gw} grid of {channels}×{p}×{p}")
    y = patches.reshape(-1, gh, gw, channels, p, p)          # (B, gh, gw, C, P, P)
    y = _permute(y, (0, 3, 1, 4, 2, 5))                      # (B, C, gh, P, gw, P)
    return y.reshape(*lead, channels, gh * p, gw * p)


def patch_box(index: int, patch_size: int, grid: tuple[int, int]) -> tuple[int, int, int, int]:
    """Pixel box (top, left, bottom, right), bottom/right exclusive, of patch `index`."""
    gh, gw = grid
    if not 0 <= index < gh * gw:
        raise IndexError(f"patch {index} is outside a {gh}×{gw} grid")
    r, c = divmod(index, gw)
    return r * patch_size, c * patch_size, (r + 1) * patch_size, (c + 1) * patch_size
