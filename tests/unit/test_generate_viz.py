"""The decoder page's figures: the right traces and values for small arrays, escaped labels."""
import numpy as np

from viz.generation import plot_beam_tree, plot_causal_growth, plot_next_token_bars, plot_objectives, tree_layout


def test_next_token_bars_show_probabilities_and_highlight_the_choice():
    fig = plot_next_token_bars(["cat", "<b>x</b>", "dog"], np.array([0.5, 0.3, 0.2]), chosen="dog")
    bar = fig.data[0]
    assert list(bar.x) == [0.5, 0.3, 0.2]
    assert list(bar.y) == ["#1 cat", "#2 &lt;b&gt;x&lt;/b&gt;", "#3 dog"]     # ranks; "·N" is a position
    assert bar.marker.color[2] != bar.marker.color[0]


def test_tree_layout_centres_parents_over_children():
    #        0
    #      1   2
    #     3 4
    y = tree_layout([-1, 0, 0, 1, 1], [0, -1, -2, -1.5, -1.2])
    assert y[4] < y[3] < y[2]                      # children ordered by score, best first
    assert y[1] == (y[3] + y[4]) / 2 and y[0] == (y[1] + y[2]) / 2


def test_beam_tree_draws_every_node_and_the_best_path():
    fig = plot_beam_tree([0, 1, 1, 2], [-1, 0, 0, 1], ["…", "a", "b", "c"], [0, -0.1, -2.3, -0.5],
                         [0, -0.1, -2.3, -0.6], ["prompt", "kept", "pruned", "kept"], best_path=[3, 1, 0])
    names = [t.name for t in fig.data]
    assert names[:3] == ["pruned", "kept", "best beam"]
    best = fig.data[2]
    assert [x for x in best.x if x is not None] == [0, 1, 1, 2]
    assert list(fig.data[-1].text) == ["…", "a", "b", "c"]


def test_causal_growth_draws_only_the_tokens_fed_so_far():
    w = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]
    fig = plot_causal_growth(w, ["a", "b", "c", "d"], upto=1, n_prompt=2)
    z = np.array(fig.data[0].z, dtype=float)
    assert z.shape == (2, 2) and np.allclose(z, w[:2, :2])          # "c" and "d" are not written yet
    assert list(fig.layout.xaxis.ticktext) == ["a ·0", "b ·1"]
    assert list(fig.layout.yaxis.ticktext) == ["a ·0", "<b>b ·1</b>"]            # the fed token's row, bold


def test_objectives_rows_have_values_only_where_there_is_a_loss_term():
    fig = plot_objectives(["the", "cat", "sat"], np.array([np.nan, 1.5, np.nan]), np.array([2.0, 1.0, 0.5]))
    text = fig.data[0].text
    assert list(text[0]) == ["", "1.5", ""] and list(text[1]) == ["2", "1", "0.5"]
