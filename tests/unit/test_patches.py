"""Patches: cutting an image up and putting it back, in numpy and torch, and where each patch lives."""
import numpy as np
import pytest
import torch

from model.data.patches import grid_size, patchify
from tests.patch_geometry import num_patches, patch_box, unpatchify


@pytest.mark.parametrize("channels,size,patch", [(1, 8, 2), (3, 24, 4), (3, 12, 6), (2, 6, 1)])
def test_patchify_then_unpatchify_gives_the_image_back(channels, size, patch):
    rng = np.random.default_rng(0)
    img = rng.random((5, channels, size, size)).astype(np.float32)
    patches = patchify(img, patch)
    assert patches.shape == (5, num_patches(size, patch), channels * patch * patch)
    np.testing.assert_array_equal(unpatchify(patches, patch, grid_size(size, patch), channels), img)
    t = torch.from_numpy(img)
    back = unpatchify(patchify(t, patch), patch, grid_size(size, patch), channels)
    assert torch.equal(back, t)


def test_patch_n_holds_exactly_the_pixels_of_its_box_in_row_major_order():
    img = np.arange(3 * 6 * 9, dtype=np.float64).reshape(3, 6, 9)           # every pixel distinct
    patches = patchify(img, 3)                                              # 2×3 grid
    assert patches.shape == (6, 27)
    for i in range(6):
        top, left, bottom, right = patch_box(i, 3, (2, 3))
        np.testing.assert_array_equal(patches[i], img[:, top:bottom, left:right].ravel())
    assert patch_box(4, 3, (2, 3)) == (3, 3, 6, 6)                          # row 1, column 1


def test_non_square_images_and_leading_dims():
    img = np.zeros((2, 4, 1, 4, 8))
    assert patchify(img, 2).shape == (2, 4, 8, 4)
    assert grid_size((4, 8), 2) == (2, 4)


@pytest.mark.parametrize("size,patch", [(8, 3), (10, 4), (8, 0)])
def test_sizes_that_do_not_split_are_refused(size, patch):
    with pytest.raises(ValueError, match="does not split"):
        grid_size(size, patch)


def test_unpatchify_refuses_a_wrong_grid():
    with pytest.raises(ValueError, match="do not make"):
        unpatchify(np.zeros((15, 4)), 2, (4, 4), 1)
    with pytest.raises(IndexError):
        patch_box(16, 2, (4, 4))
