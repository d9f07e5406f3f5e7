"""Every head of a layer side by side: one map per head, in order, on one colour scale, token labels escaped."""
import numpy as np
import pytest

from viz.multi_head import plot_heads_side_by_side


def test_one_map_per_head_in_order_on_one_scale():
    w = np.stack([np.eye(3), np.full((3, 3), 1 / 3)])                       # (2, 3, 3): a diagonal, a uniform
    fig = plot_heads_side_by_side(w, ["a", "<b>", "c"], ["L1 H0", "L1 H1"])
    assert [t.meta for t in fig.data] == ["L1 H0", "L1 H1"]
    assert np.allclose(fig.data[0].z, np.eye(3)) and np.allclose(fig.data[1].z, 1 / 3)
    assert list(fig.data[0].x) == ["a ·0", "&lt;b&gt; ·1", "c ·2"]
    scale = fig.layout.coloraxis
    assert {t.coloraxis for t in fig.data} == {"coloraxis"} and (scale.cmin, scale.cmax) == (0, 1)


def test_titles_and_tokens_must_match_the_weights():
    with pytest.raises(ValueError, match="do not agree"):
        plot_heads_side_by_side(np.zeros((2, 3, 3)), ["a", "b", "c"], ["L0 H0"])


def test_every_head_labels_every_token_and_the_shared_query_axis_once():
    tokens = [f"w{i}" for i in range(21)]                                     # Plotly alone showed 11 of 21
    fig = plot_heads_side_by_side(np.full((4, 21, 21), 1 / 21), tokens, [f"L0 H{h}" for h in range(4)])
    for axis in ("xaxis", "xaxis2", "xaxis3", "xaxis4", "yaxis"):
        ax = fig.layout[axis]
        assert ax.tickmode == "array" and list(ax.ticktext) == [f"w{i} ·{i}" for i in range(21)], axis
    assert fig.layout.yaxis2.showticklabels is False                         # one query axis, on the left
    # a quarter of a 700-px column holds 21 labels only turned vertical
    assert fig.layout.xaxis.tickangle == -90 and fig.layout.xaxis.tickfont.size >= 6
