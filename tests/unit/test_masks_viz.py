"""viz.masks.plot_mask_grid: one panel per mask, the asked cell outlined in its own panel, titles that say whether
the cell is allowed, names escaped."""
import numpy as np

from viz.masks import plot_mask_grid


def test_mask_grid_outlines_the_cell_in_every_panel_and_says_whether_it_is_allowed():
    eye, ones = np.eye(4, dtype=bool), np.ones((4, 4), dtype=bool)
    fig = plot_mask_grid({"<b>self</b>": eye, "all": ones, "upper": np.triu(ones)}, mark=(1, 3), cols=2)
    assert [a.text for a in fig.layout.annotations] == ["&lt;b&gt;self&lt;/b&gt;<br>blocked", "all<br>sees",
                                                        "upper<br>sees"]
    assert [np.asarray(t.z).tolist() for t in fig.data] == [m.astype(int).tolist() for m in (eye, ones, np.triu(ones))]
    boxes = [(s.xref, s.yref, s.x0, s.x1, s.y0, s.y1) for s in fig.layout.shapes]
    assert boxes == [(x, y, 2.5, 3.5, 0.5, 1.5) for x, y in (("x", "y"), ("x2", "y2"), ("x3", "y3"))]
    assert fig.layout.yaxis3.autorange == "reversed" and fig.layout.yaxis3.scaleanchor == "x3"   # query rows down
    assert fig.layout.height == 70 + 230 * 2                                                     # 3 panels, 2 rows


def test_added_tokens_are_named_g0_before_the_text_tokens_counted_from_0():
    from model.engine import masks
    from viz.masks import plot_mask
    m = masks.extra_global_tokens(5, 2, 1)                                # (7, 7): G0, G1, then tokens 0..4
    fig = plot_mask(m, added=2)
    assert list(fig.data[0].x) == ["G0", "G1", "0", "1", "2", "3", "4"] == list(fig.data[0].y)
    assert fig.layout.xaxis.type == "category" and np.asarray(fig.data[0].z).shape == (7, 7)
    grid = plot_mask_grid({"extra": m, "window": masks.sliding_window(5, 1)}, mark=(1, 3), added={"extra": 2})
    boxes = [(s.x0, s.y0) for s in grid.layout.shapes]
    assert boxes == [(4.5, 2.5), (2.5, 0.5)]                            # the text's tokens 1 and 3, past G0 and G1
    assert list(grid.layout.xaxis.ticktext) == ["G0", "1", "3", "4"] and list(grid.layout.xaxis2.ticktext) == \
        ["0", "1", "3", "4"]
