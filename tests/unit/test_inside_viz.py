"""The inside-a-head figures (viz/ablation.py, why_weight.py, value_norms.py, qk_scatter.py) are built from plain
dicts without Plotly's checks (viz/unchecked.py): each passes the checks unchanged, escapes typed markup, and draws
the numbers it is given."""
import numpy as np
import plotly.graph_objects as go
import pytest

from viz import ablation, grid, qk_scatter, value_norms, why_weight

TOKENS = ["[CLS]", "the", "<b>cat</b>", "sat", "[SEP]"]


def checked(fig: go.Figure) -> go.Figure:
    return go.Figure(fig.to_dict())


def rows(n: int) -> np.ndarray:
    return np.random.default_rng(0).dirichlet(np.ones(n), size=n).astype(np.float32)


FIGURES = {
    "attention_change": lambda: ablation.plot_attention_change(np.full((2, 3), 0.1), removed=[(0, 1)], title="t"),
    "output_change": lambda: ablation.plot_output_change(np.arange(5.0), TOKENS, [True, False, True, False, False]),
    "difference": lambda: ablation.plot_difference(rows(5) - rows(5).T, q_labels=TOKENS, k_labels=TOKENS, title="t"),
    "head_effects": lambda: ablation.plot_head_effects(np.full((2, 3), 0.9), 1.0, chosen=(1, 2), name="n", title="t"),
    "products": lambda: why_weight.plot_products(np.array([1.0, -2.0, 0.5]), [1], title="t"),
    "row": lambda: why_weight.plot_row(np.array([1.0, -np.inf, 2, 0, 0]), rows(5)[0], TOKENS, 2, title="t"),
    "side_by_side": lambda: value_norms.plot_side_by_side(rows(5), rows(5), labels=TOKENS, titles=("a", "b")),
    "norms": lambda: value_norms.plot_norms(np.arange(5.0), TOKENS),
    "mixing": lambda: value_norms.plot_mixing(np.full((3, 5), 0.3)),
    "qk": lambda: qk_scatter.plot_qk(np.zeros((5, 2)), np.ones((5, 2)), q_text=TOKENS, k_text=TOKENS,
                                     pairs=np.array([[0, 1, 0.9], [2, 3, 0.5]]), explained=np.array([0.6, 0.3])),
}


@pytest.mark.parametrize("name", FIGURES)
def test_inside_figures_pass_plotly_checks_unchanged(name):
    fig = FIGURES[name]()
    assert checked(fig).to_dict() == fig.to_dict()
    assert "<b>cat</b>" not in fig.to_json().replace("\\u003c", "<").replace("\\u003e", ">")


def test_a_masked_score_is_left_out_of_the_row_and_the_picked_key_is_orange():
    fig = why_weight.plot_row(np.array([1.0, -np.inf, 2.0]), np.array([0.27, 0.0, 0.73]), ["a", "b", "c"], 2)
    scores, weights = fig.data
    assert scores.y == (1.0, None, 2.0) and weights.y == (0.27, 0.0, 0.73)
    assert scores.marker.color == (why_weight.OTHER, why_weight.OTHER, why_weight.PICKED)


def test_qk_lines_join_each_pair_query_to_its_key():
    q, k = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[5.0, 5.0], [7.0, 8.0]])
    fig = qk_scatter.plot_qk(q, k, q_text=["a", "b"], k_text=["c", "d"], pairs=np.array([[1, 0, 0.8]]),
                             explained=np.array([0.5, 0.2]))
    assert fig.data[0].x == (1.0, 5.0, None) and fig.data[0].y == (1.0, 5.0, None)


def test_click_targets_put_one_marker_on_every_cell_of_the_zoom():
    w = rows(5)
    zoom = grid.plot_zoom(w, q_labels=TOKENS, k_labels=TOKENS)
    fig = why_weight.with_click_targets(zoom, w, q_labels=TOKENS, k_labels=TOKENS)
    assert checked(fig).to_dict() == fig.to_dict()
    heat, targets = fig.data
    assert len(targets.x) == 25 and (targets.y[7], targets.x[7]) == (heat.y[1], heat.x[2])     # row 1, column 2
    assert np.asarray(targets.customdata)[7] == w[1, 2] and fig.layout.clickmode == "event+select"
