"""Cutting an image into non-overlapping square patches (ViT, Dosovitskiy et al.
2021, sec. 3.1): x ∈ R^{C×H×W} -> N = (H/P)(W/P) vectors of length C·P², patches in row-major order."""
import numpy as np
import torch


def grid_size(image_size: tuple[int, int] | int, patch_size: int) -> tuple[int, int]:
    """(rows, cols) of the patch grid; the image sides must be multiples of patch_size."""
    h, w = (image_size, image_size) if isinstance(image_size, int) else image_size
    if patch_size < 1 or h % patch_size or w % patch_size:
        raise ValueError(f"image {h}×{w} does not split into {patch_size}×{patch_size} patches")
    return h // patch_size, w // patch_size


def permute(x, dims):
    """np.transpose or Tensor.permute, whichever x is."""
    return x.permute(*dims) if isinstance(x, torch.Tensor) else np.transpose(x, dims)


def patchify(x, patch_size: int):
    """x: (..., C, H, W) numpy array or tensor -> (..., N, C·P·P); patch n = (row n // gw, col n % gw),
    each flattened channel first, then pixel rows, then pixel columns."""
    *lead, c, h, w = x.shape
    gh, gw = grid_size((h, w), patch_size)
    p = patch_size
    y = x.reshape(-1, c, gh, p, gw, p)                       # (B, C, gh, P, gw, P)
    y = permute(y, (0, 2, 4, 1, 3, 5))                      # (B, gh, gw, C, P, P)
    return y.reshape(*lead, gh * gw, c * p * p)
