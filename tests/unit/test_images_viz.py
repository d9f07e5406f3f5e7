"""viz/images.py: overlays put each patch's value on exactly its pixels; grids, sequences and windows
draw what they claim."""
import numpy as np
import pytest

from tests.patch_geometry import patch_box
from viz.images import (
    patch_upsample,
    plot_head_grid,
    plot_overlay,
    plot_patch_grid,
    plot_patch_sequence,
    plot_probs,
)


@pytest.mark.parametrize("grid,patch", [((4, 4), 2), ((6, 6), 4), ((2, 3), 3)])
def test_overlay_puts_patch_i_on_exactly_its_pixels(grid, patch):
    n = grid[0] * grid[1]
    for i in range(n):
        values = np.zeros(n)
        values[i] = 1.0
        up = patch_upsample(values, grid, patch)
        top, left, bottom, right = patch_box(i, patch, grid)
        expected = np.zeros((grid[0] * patch, grid[1] * patch))
        expected[top:bottom, left:right] = 1.0
        np.testing.assert_array_equal(up, expected)


def test_overlay_figure_carries_the_exact_weights_and_patch_numbers():
    img = np.random.default_rng(0).random((8, 8))
    w = np.random.default_rng(1).random(16)
    fig = plot_overlay(img, w, (4, 4), 2)
    image, heat = fig.data
    assert image.type == "image" and heat.type == "heatmap"
    z, ids = np.asarray(heat.z), np.asarray(heat.customdata)
    assert z.shape == (8, 8) and z[3, 5] == w[1 * 4 + 2] and ids[3, 5] == 6
    assert heat.zmax == pytest.approx(w.max()) and "%{z:.4f}" in heat.hovertemplate


def test_grey_images_become_rgb_pixels_in_0_255():
    fig = plot_overlay(np.eye(8), np.ones(16) / 16, (4, 4), 2)
    z = np.asarray(fig.data[0].z)
    assert z.shape == (8, 8, 3) and z[0, 0].tolist() == [255, 255, 255] and z[0, 1].tolist() == [0, 0, 0]


def test_patch_grid_numbers_every_patch_where_it_lies():
    fig = plot_patch_grid(np.zeros((6, 6, 3)), (3, 3), 2, highlight=np.eye(9, dtype=bool)[4])
    texts = {a.text: (a.x, a.y) for a in fig.layout.annotations}
    assert len(texts) == 9 and texts["p5"] == (4.5, 2.5)
    outlines = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(outlines) == 1 and (outlines[0].x0, outlines[0].y0) == (1.5, 1.5)


def test_patch_sequence_starts_with_cls_then_patches_in_order():
    tiles = np.stack([np.full((2, 2), v) for v in (0.0, 0.5, 1.0)])
    fig = plot_patch_sequence(tiles)
    assert list(fig.layout.xaxis.ticktext) == ["<cls>", "p0", "p1", "p2"]
    z = np.asarray(fig.data[0].z)
    centres = fig.layout.xaxis.tickvals
    assert z[0, int(centres[2]), 0] == 128 and z[0, int(centres[3]), 0] == 255


def test_head_grid_has_one_panel_per_layer_and_head():
    rows = np.random.default_rng(0).random((2, 3, 4))
    fig = plot_head_grid(np.zeros((4, 4)), rows, (2, 2), 2)
    heats = [t for t in fig.data if t.type == "heatmap"]
    assert len(heats) == 6 and np.asarray(heats[4].z)[0, 2] == rows[1, 1, 1]
    assert [a.text for a in fig.layout.annotations][:2] == ["L0 H0", "L0 H1"]


def test_probs_highlight_the_top_class():
    fig = plot_probs(np.array([0.1, 0.7, 0.2]), ["a", "b", "c"])
    colours = list(fig.data[0].marker.color)
    assert colours[1] != colours[0] and colours[0] == colours[2]


def test_heat_look_glows_where_veil_look_clears():
    w = np.linspace(0, 1, 4)
    veil = plot_overlay(np.zeros((4, 4)), w, (2, 2), 2).data[1].colorscale
    heat = plot_overlay(np.zeros((4, 4)), w, (2, 2), 2, look="heat").data[1].colorscale
    assert veil[-1][1].endswith("0.0)") and heat[0][1].endswith("0.0)")        # transparent ends differ


def test_heads_side_by_side_share_one_colour_scale_with_one_colour_bar():
    """A head that barely looks anywhere (largest weight 0.1) is pale next to one that looks hard (0.9): each on
    its own scale both would glow alike."""
    rows = np.zeros((1, 2, 4))
    rows[0, 0, 1], rows[0, 1, 2] = 0.9, 0.1
    fig = plot_head_grid(np.zeros((4, 4)), rows, (2, 2), 2)
    heats = [t for t in fig.data if t.type == "heatmap"]
    assert [(t.zmin, t.zmax) for t in heats] == [(0.0, 0.9), (0.0, 0.9)]
    assert [t.showscale for t in heats] == [True, False] and "every" in heats[0].colorbar.title.text
    single = plot_overlay(np.zeros((4, 4)), rows[0, 1], (2, 2), 2, zmax=0.9)
    assert single.data[1].zmax == 0.9
