"""viz.translation: alignment lines only where the weight passes the threshold, exact hover values,
escaped labels; one heatmap per head."""
import numpy as np

from viz.translation import plot_alignment, plot_head_grid, plot_step_probs

W = np.array([[0.05, 0.15, 0.80],
              [0.60, 0.30, 0.10]])     # (T=2, S=3)


def test_alignment_draws_one_line_per_weight_above_threshold_with_exact_hover():
    fig = plot_alignment(W, src_tokens=["a", "b", "<b>c</b>"], tgt_tokens=["甲", "乙"], threshold=0.2)
    lines = [t for t in fig.data if t.mode == "lines"]
    n_segments = sum(len([x for x in t.x if x is None]) for t in lines)
    assert n_segments == 3                                  # 0.80, 0.60, 0.30
    hover = next(t for t in fig.data if t.mode == "markers")
    assert sorted(np.round(hover.customdata[:, 0], 6)) == [0.3, 0.6, 0.8]
    assert any("乙 ·1 → b ·1" == s for s in hover.text)
    src_labels = next(t for t in fig.data if t.mode == "markers+text" and t.name == "source").text
    assert "&lt;b&gt;c&lt;/b&gt;" in src_labels


def test_heavier_weights_get_thicker_lines():
    fig = plot_alignment(W, src_tokens=list("abc"), tgt_tokens=list("xy"), threshold=0.1)
    lines = sorted((t for t in fig.data if t.mode == "lines"), key=lambda t: t.line.width)
    assert len(lines) >= 2 and lines[0].line.width < lines[-1].line.width
    assert len(lines[-1].x) == 3                            # one segment: only 0.80 is in the top band


def test_alignment_with_nothing_above_threshold_still_labels_both_sentences():
    fig = plot_alignment(np.full((2, 4), 0.25), src_tokens=list("abcd"), tgt_tokens=list("xy"), threshold=0.5)
    assert not [t for t in fig.data if t.mode == "lines"]
    assert [len(t.text) for t in fig.data if t.mode == "markers+text"] == [4, 2]


def test_head_grid_has_one_heatmap_per_head_with_its_own_values():
    w = np.random.default_rng(0).dirichlet(np.ones(3), size=(4, 2))     # (H=4, rows=2, cols=3)
    fig = plot_head_grid(w, x_labels=list("abc"), y_labels=["x", "<y>"])
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert len(heat) == 4 and [bool(t.showscale) for t in heat] == [False, False, False, True]
    for h, t in enumerate(heat):
        np.testing.assert_array_equal(np.asarray(t.z), w[h])
    assert heat[0].y[1] == "&lt;y&gt; ·1"
    assert [a.text for a in fig.layout.annotations] == ["H0", "H1", "H2", "H3"]


def test_step_probs_bars_follow_the_probabilities():
    fig = plot_step_probs(np.array([0.9, 0.5, 1.0]), tokens=["老", "师", "[EOS]"])
    np.testing.assert_array_equal(fig.data[0].y, [0.9, 0.5, 1.0])
    assert list(fig.data[0].x) == ["老 ·0", "师 ·1", "[EOS] ·2"]
