"""Tick labels on every row and column of a map (viz.ticks), the picked token outlined on the zoomed head, and the
WCAG luminance and contrast the dark mode picks its ink by (viz.theme)."""
import numpy as np
import pytest

from viz import grid, theme, ticks
from viz.heatmap import safe_labels


def tokens(n: int) -> list[str]:
    return [f"w{i}" for i in range(n)]


def test_a_long_token_is_cut_with_an_ellipsis_and_keeps_its_position():
    assert ticks.shorten("sandwiches-and-chips ·9") == "sandwiches-… ·9"
    assert ticks.shorten("restaurant ·2") == "restaurant ·2"                 # 10 characters stay whole
    assert ticks.shorten(" restaurant ·2") == "restaurant ·2"                # a piece's leading space is not seen
    assert ticks.shorten("&lt;b&gt;verylongtokenhere ·3") == "&lt;b&gt;verylong… ·3"     # entities stay whole
    assert ticks.shorten("L0 H0") == "L0 H0"


@pytest.mark.parametrize("n, step", [(3, 1), (64, 1), (65, 2), (200, 4)])
def test_every_label_lists_each_value_up_to_64_and_every_kth_beyond(n, step):
    values = safe_labels(tokens(n))
    axis = ticks.every_label(values)
    assert axis["tickmode"] == "array" and axis["tickvals"] == values[::step]
    assert axis["ticktext"] == values[::step]


def test_the_picked_value_is_bold_and_a_numeric_axis_ticks_positions():
    axis = ticks.numbered_every_label(safe_labels(["a", "b", "c"]), picked=1)
    assert axis["tickvals"] == [0, 1, 2] and axis["ticktext"] == ["a ·0", "<b>b ·1</b>", "c ·2"]


def test_fit_shrinks_the_font_until_43_rows_cannot_overlap_on_a_560_px_square_map():
    fig = grid.plot_zoom(np.full((43, 43), 1 / 43), q_labels=tokens(43), k_labels=tokens(43))
    fig.update_layout(height=560)
    fig.update_yaxes(scaleanchor="x")
    fitted = ticks.fit(fig, font=22.4)
    assert fitted.font < 22.4 and 43 * fitted.font * ticks.LINE <= fitted.plot_h + 1    # each row its own line
    assert fig.layout.yaxis.tickfont.size == fig.layout.xaxis.tickfont.size == fitted.font
    assert fig.layout.xaxis.tickangle == -90                                        # columns too narrow to lie flat


def test_fit_keeps_the_full_font_and_upright_labels_where_there_is_room():
    fig = grid.plot_zoom(np.full((3, 3), 1 / 3), q_labels=["a", "b", "c"], k_labels=["a", "b", "c"])
    assert ticks.fit(fig, font=14, width=1200).font == 14 and fig.layout.xaxis.tickangle == 0


def test_the_zoom_labels_every_token_and_outlines_the_picked_row_and_column():
    fig = grid.plot_zoom(np.full((43, 43), 1 / 43), q_labels=tokens(43), k_labels=tokens(43), picked=11)
    assert len(fig.layout.yaxis.tickvals) == len(fig.layout.xaxis.tickvals) == 43
    assert fig.layout.yaxis.ticktext[11] == fig.layout.xaxis.ticktext[11] == "<b>w11 ·11</b>"
    row, column = fig.layout.shapes
    assert (row.y0, row.y1, row.x0, row.x1) == (10.5, 11.5, -0.5, 42.5)
    assert (column.x0, column.x1, column.y0, column.y1) == (10.5, 11.5, -0.5, 42.5)
    assert not grid.plot_zoom(np.eye(3), q_labels=list("abc"), k_labels=list("abc")).layout.shapes


def test_luminance_and_contrast_match_wcag():
    assert theme.luminance("#ffffff") == pytest.approx(1.0) and theme.luminance("#000") == 0
    assert theme.contrast(theme.luminance("#ffffff"), theme.luminance("#000000")) == pytest.approx(21)
    # WCAG's own example: #767676 on white is the lightest grey that passes AA, 4.54 : 1
    assert theme.contrast(theme.luminance("#767676"), 1.0) == pytest.approx(4.54, abs=0.01)
    assert theme.luminance("rgb(255, 255, 255)") == pytest.approx(1.0)
    assert theme.luminance("rgba(0,0,0,0)") is None and theme.luminance(None) is None
