"""Generated scenes: one red shape, the label names it, and the object masks mark its pixels and patches."""
import numpy as np
import pytest

from model.data import scenes


def _is_red(pixels: np.ndarray) -> np.ndarray:
    """pixels: (3, ...) -> bool, red and not any other colour of the palette."""
    r, g, b = pixels
    return (r > 0.6) & (g < 0.35) & (b < 0.35)


def test_each_scene_has_one_red_shape_and_the_label_names_it():
    rng = np.random.default_rng(0)
    for _ in range(50):
        s = scenes.make_scene(rng)
        colours = [c for _, c in s.objects]
        assert colours.count("red") == 1 and 2 <= len(s.objects) <= 4
        red_kind = next(k for k, c in s.objects if c == "red")
        assert scenes.SHAPES[s.label] == red_kind
        red = _is_red(s.image)
        assert np.array_equal(red, s.target)                  # the target mask is exactly the red pixels


@pytest.mark.parametrize("kind,area", [("square", 64), ("circle", 52), ("triangle", 36)])
def test_shapes_have_the_area_their_geometry_gives(kind, area):
    m = scenes.shape_mask(kind, 2, 3, 8)
    assert abs(int(m.sum()) - area) <= 4
    rows, cols = np.nonzero(m)
    assert rows.min() >= 2 and rows.max() < 10 and cols.min() >= 3 and cols.max() < 11


def test_triangles_widen_towards_the_base():
    m = scenes.shape_mask("triangle", 0, 0, 9)
    widths = m.sum(axis=1)[:9]
    assert widths[0] < widths[4] < widths[8]


def test_datasets_are_reproducible_from_their_seed_and_balanced():
    a, la, ta = scenes.make_dataset(300, seed=5)
    b, lb, tb = scenes.make_dataset(300, seed=5)
    assert np.array_equal(a, b) and np.array_equal(la, lb) and np.array_equal(ta, tb)
    assert a.shape == (300, 3, scenes.SIZE, scenes.SIZE) and a.dtype == np.float32
    counts = np.bincount(la, minlength=3)
    assert counts.min() > 70


def test_patch_mask_marks_patches_holding_any_object_pixel():
    pixels = np.zeros((8, 8), dtype=bool)
    pixels[3, 4] = True                                     # patch row 0, col 1 on a 4-pixel grid
    pixels[7, 0] = True                                     # patch row 1, col 0
    assert scenes.patch_mask(pixels, 4).tolist() == [False, True, True, False]
    assert scenes.patch_mask(np.stack([pixels, ~pixels]), 4).shape == (2, 4)


def test_crowded_scenes_hold_more_shapes_but_still_one_red():
    rng = np.random.default_rng(1)
    crowded = [scenes.make_scene(rng, objects=(5, 7)) for _ in range(40)]
    assert np.mean([len(s.objects) for s in crowded]) > 4
    assert all([c for _, c in s.objects].count("red") == 1 for s in crowded)
