"""Patch geometry the tests check the models and figures against: patch counts, the inverse of patchify,
the pixel box of a patch."""
from model.data.patches import grid_size, permute


def num_patches(image_size: tuple[int, int] | int, patch_size: int) -> int:
    gh, gw = grid_size(image_size, patch_size)
    return gh * gw


def unpatchify(patches, patch_size: int, grid: tuple[int, int], channels: int):
    """Inverse of patchify. patches: (..., N, C·P·P) -> (..., C, H, W)."""
    *lead, n, d = patches.shape
    gh, gw = grid
    p = patch_size
    if n != gh * gw or d != channels * p * p:
        raise ValueError(f"{n} patches of length {d} do not make a {gh}×{gw} grid of {channels}×{p}×{p}")
    y = patches.reshape(-1, gh, gw, channels, p, p)          # (B, gh, gw, C, P, P)
    y = permute(y, (0, 3, 1, 4, 2, 5))                      # (B, C, gh, P, gw, P)
    return y.reshape(*lead, channels, gh * p, gw * p)


def patch_box(index: int, patch_size: int, grid: tuple[int, int]) -> tuple[int, int, int, int]:
    """Pixel box (top, left, bottom, right), bottom/right exclusive, of patch `index`."""
    gh, gw = grid
    if not 0 <= index < gh * gw:
        raise IndexError(f"patch {index} is outside a {gh}×{gw} grid")
    r, c = divmod(index, gw)
    return r * patch_size, c * patch_size, (r + 1) * patch_size, (c + 1) * patch_size
