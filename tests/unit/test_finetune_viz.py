"""The fine-tuning figures on small arrays: what each draws, where, and with which values."""
import numpy as np

from viz.finetune import (
    plot_attention_pair,
    plot_head_change,
    plot_learning_curves,
    plot_probabilities,
    plot_span_scores,
)


def test_head_change_draws_each_head_at_its_layer_with_its_value():
    change = np.array([[0.1, 0.2], [0.3, 0.9], [0.0, 0.5]])
    fig = plot_head_change(change)
    trace = fig.data[0]
    assert list(trace.y) == ["L0", "L1", "L2"] and list(trace.x) == ["H0", "H1"]
    assert np.array_equal(np.asarray(trace.z), change) and trace.zmax == 0.9


def test_learning_curves_draw_runs_and_flat_baselines_across_the_steps():
    fig = plot_learning_curves({"full": ([0, 100, 200], [0.1, 0.6, 0.8]), "frozen": ([0, 100, 200], [0.1, 0.3, 0.4])},
                               baselines={"bag of <b>words</b>": 0.7})
    assert [t.name for t in fig.data] == ["full", "frozen", "bag of &lt;b&gt;words&lt;/b&gt;"]   # names escaped
    assert list(fig.data[2].x) == [0, 200] and list(fig.data[2].y) == [0.7, 0.7]


def test_span_scores_shade_the_chosen_pieces_and_probabilities_keep_the_label_order():
    fig = plot_span_scores(["The", "pilot", "put"], np.array([0.1, 2.0, -1.0]), np.array([0.0, 3.0, 0.5]),
                           chosen=(1, 1))
    shade = fig.layout.shapes[0]
    assert (shade.x0, shade.x1) == (0.5, 1.5) and list(fig.data[1].y) == [0.0, 3.0, 0.5]
    bars = plot_probabilities(["act", "animal"], {"full": np.array([0.2, 0.8])})
    assert list(bars.data[0].y) == ["act", "animal"] and list(bars.data[0].x) == [0.2, 0.8]


def test_attention_pair_draws_before_left_and_after_right():
    before, after = np.eye(3), np.full((3, 3), 1 / 3)
    fig = plot_attention_pair(before, after, ["[CLS]", "a", "<b>"], titles=("before", "after"))
    assert np.array_equal(np.asarray(fig.data[0].z), before) and np.array_equal(np.asarray(fig.data[1].z), after)
    assert fig.data[0].x[2] == "&lt;b&gt; ·2" and fig.data[0].xaxis == "x" and fig.data[1].xaxis == "x2"
