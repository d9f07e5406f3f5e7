"""Pictures of hierarchical models and ImageGPT on small arrays: windows drawn where the window ids change, the
picked token's window outlined, channel maps, completions and the pixels a position cannot see."""
import numpy as np

from model.engine.masks import swin_window_ids
from viz.completion import plot_pixel_attention, with_unknown
from viz.stages import plot_channel_attention, plot_stage_overlay, plot_windows_on_image, window_box


def _segments(trace) -> int:
    return sum(1 for x in trace.x if x is None)


def test_thick_lines_run_exactly_along_window_borders():
    plain = swin_window_ids(4, 4, 2, 0).reshape(4, 4)                  # one border across, one down
    fig = plot_windows_on_image(np.zeros((4, 4)), plain, 1)
    thick = [t for t in fig.data if t.type == "scatter" and t.line.width == 3][0]
    assert _segments(thick) == 4 + 4 and set(v for v in thick.x if v is not None) <= {-0.5, 0.5, 1.5, 2.5, 3.5}
    shifted = swin_window_ids(4, 4, 2, 1).reshape(4, 4)                # borders after rows/cols 0 and 2
    fig = plot_windows_on_image(np.zeros((4, 4)), shifted, 2, picked=5)
    thick = [t for t in fig.data if t.type == "scatter" and t.line.width == 3][0]
    assert _segments(thick) == 2 * (4 + 4)
    rect = fig.layout.shapes[0]                                         # p5's window: rows 1–2, cols 1–2, 2 px each
    assert (rect.x0, rect.x1, rect.y0, rect.y1) == (1.5, 5.5, 1.5, 5.5)


def test_window_box_is_the_rectangle_of_the_tokens_window():
    ids = swin_window_ids(4, 4, 2, 1).reshape(4, 4)
    assert window_box(ids, 0) == (0, 0, 0, 0) and window_box(ids, 5) == (1, 1, 2, 2)
    assert window_box(ids, 7) == (1, 3, 2, 3)


def test_stage_overlay_spreads_each_token_over_its_pixels():
    fig = plot_stage_overlay(np.zeros((8, 8)), np.arange(4.0), 2, 4, picked=3)
    z = np.asarray(fig.data[1].z)
    assert z.shape == (8, 8) and z[0, 0] == 0 and z[7, 7] == 3 and z[0, 4] == 1


def test_channel_attention_map_labels_its_channels_and_outlines_the_picked_row():
    w = np.full((4, 4), 0.25)
    fig = plot_channel_attention(w, channels=[4, 5, 6, 7], picked=2)
    assert list(fig.data[0].x) == ["c4", "c5", "c6", "c7"]
    assert (fig.layout.shapes[0].y0, fig.layout.shapes[0].y1) == (1.5, 2.5)


def test_a_pixel_sees_only_the_pixels_before_it():
    fig = plot_pixel_attention(np.zeros((4, 4)), np.linspace(0, 1, 16), 6)
    seen, unseen = np.asarray(fig.data[1].z, dtype=float), np.asarray(fig.data[2].z, dtype=float)
    assert np.isnan(seen.ravel()[6:]).all() and not np.isnan(seen.ravel()[:6]).any()
    assert np.isnan(unseen.ravel()[:6]).all() and (unseen.ravel()[6:] == 1).all()
    rgb = with_unknown(np.full((2, 2), 0.5), np.array([[True, False], [True, True]]))
    assert rgb[0, 0].tolist() == [0.5] * 3 and rgb[0, 1].tolist() != [0.5] * 3
