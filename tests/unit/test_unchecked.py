"""Figures built without Plotly's checks (viz/unchecked.py) pass them, and the checks change nothing: each
is rebuilt here with the checks on and must give the same JSON (a shorthand such as title="x" that the
checks would expand to title={"text": "x"} fails). The first tests show both checks can fail."""
import numpy as np
import plotly.graph_objects as go
import pytest

from viz import grid, head_view
from viz.unchecked import figure

TOKENS = ["[CLS]", "the", "<b>cat</b>", "sat", "on", "the", "mat", "[SEP]"]


def checked(fig: go.Figure) -> go.Figure:
    return go.Figure(fig.to_dict())


def weights(*shape) -> np.ndarray:
    """(..., N, N) float32 rows that sum to 1."""
    n = shape[-1]
    return np.random.default_rng(0).dirichlet(np.ones(n), size=shape[:-1]).astype(np.float32)


def test_the_check_refuses_a_bad_property():
    bad = figure([dict(type="scatter", x=[0, 1], y=[0, 1], mode="lines", opacity=2.0)], {})
    with pytest.raises(ValueError, match="opacity"):
        checked(bad)


def test_the_check_sees_a_shorthand_the_browser_would_drop():
    short = figure([dict(type="heatmap", z=[[1.0]], colorbar=dict(title="weight"))], {})
    assert checked(short).to_dict() != short.to_dict()


@pytest.mark.parametrize("picked", [None, 2])
def test_head_view_passes_plotly_checks_unchanged(picked):
    fig = head_view.plot_head_view(weights(3, 8, 8), TOKENS, heads=[0, 1, 2], picked=picked, min_weight=0.0)
    assert checked(fig).to_dict() == fig.to_dict()
    labels = [t for tr in fig.data if tr.mode == "markers+text" for t in tr.text]
    assert any("&lt;b&gt;cat&lt;/b&gt;" in t for t in labels) and not any("<b>cat</b>" in t for t in labels)


@pytest.mark.parametrize("log", [False, True])
def test_grid_and_zoom_pass_plotly_checks_unchanged(log):
    fig, _ = grid.plot_grid(weights(2, 3, 8, 8), log=log, picked=(1, 2), cell_text=[["a"] * 3, ["b"] * 3])
    assert checked(fig).to_dict() == fig.to_dict()
    zoom = grid.plot_zoom(weights(8, 8), q_labels=TOKENS, k_labels=TOKENS, log=log, title="L0 H1")
    assert checked(zoom).to_dict() == zoom.to_dict()
