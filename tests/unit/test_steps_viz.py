"""viz.steps: rounded numbers in the cells, exact values on hover, −∞ handled, the saturation curves."""
import numpy as np

from viz.steps import exact, plot_matrix, plot_saturation, plot_softmax_bars, plot_trace


def test_matrix_cells_are_rounded_and_hover_holds_the_exact_float():
    m = np.array([[0.123456789, -2.0], [1 / 3, 5.5]])
    trace = plot_matrix(m, row_labels=["a", "<b>"], title="t").data[0]
    assert list(trace.text[0]) == ["0.1235", "-2.0000"]
    assert float(trace.customdata[1][0]) == 1 / 3 and trace.customdata[1][0] == repr(1 / 3)
    assert "%{customdata}" in trace.hovertemplate
    assert list(trace.y) == ["a ·0", "&lt;b&gt; ·1"]          # token labels escaped and numbered
    assert list(trace.x) == ["d0", "d1"]


def test_masked_scores_are_grey_cells_written_minus_infinity():
    m = np.array([[1.0, -np.inf], [0.5, 0.25]])
    values, masked = plot_matrix(m).data
    assert np.isnan(values.z[0][1]) and values.customdata[0][1] == "−∞"
    assert np.isnan(masked.z[0][0]) and masked.z[0][1] == 1.0 and masked.text[0][1] == "−∞"
    assert masked.colorscale[0][1] == masked.colorscale[1][1] != "rgba(0,0,0,0)"       # one grey, not a blank
    assert exact(float("inf")) == "+∞"


def test_a_causal_matrix_of_a_sentence_has_a_number_or_minus_infinity_in_every_cell():
    """A 21-token sentence, as on the page: every cell is written (2 decimals at this width), masked cells −∞
    even in matrices too wide for numbers."""
    t = 21
    scores = np.where(np.tril(np.ones((t, t), bool)), np.linspace(-3, 3, t * t).reshape(t, t), -np.inf)
    values, masked = plot_matrix(scores).data
    text = np.where(np.array(masked.text) == "−∞", "−∞", np.array(values.text))
    assert (text != "").all()
    assert values.text[1][0] == f"{scores[1, 0]:.2f}" and text[0][1] == "−∞"
    wide = np.where(np.tril(np.ones((30, 30), bool)), 0.5, -np.inf)
    assert plot_matrix(wide).data[0].text is None and plot_matrix(wide).data[1].text[0][1] == "−∞"


def test_weights_use_a_fixed_zero_to_one_scale_and_big_matrices_skip_cell_text():
    w = plot_matrix(np.full((3, 3), 1 / 3), weights=True).data[0]
    assert (w.zmin, w.zmax) == (0.0, 1.0)
    wide = plot_matrix(np.zeros((3, 30))).data[0]
    assert wide.text is None and np.shape(wide.customdata) == (3, 30) and wide.showscale is not False


def test_head_dividers_and_labels_are_drawn_between_column_groups():
    fig = plot_matrix(np.zeros((2, 12)), col_groups=4)
    assert [s.x0 for s in fig.layout.shapes] == [3.5, 7.5]
    assert [a.text for a in fig.layout.annotations] == ["H0", "H1", "H2"]


def test_the_picked_query_row_is_outlined():
    fig = plot_matrix(np.zeros((5, 5)), highlight_row=3)
    (rect,) = fig.layout.shapes
    assert (rect.y0, rect.y1, rect.x0, rect.x1) == (2.5, 3.5, -0.5, 4.5)


def test_trace_figure_has_norm_mean_and_variance_panels():
    fig = plot_trace(["x", "LN"], [2.0, 5.6], [0.1, 0.0], [0.3, 1.0])
    assert len(fig.data) == 3
    assert list(fig.data[0].x) == [2.0, 5.6] and list(fig.data[2].text) == ["0.3000", "1.0000"]


def test_saturation_figure_draws_scaled_and_unscaled_or_just_one():
    d = np.array([1, 4, 16])
    args = (d, [0.3, 0.3, 0.3], [0.3, 0.5, 0.8], [0.3, 0.3, 0.3], [0.3, 0.2, 0.1])
    both = plot_saturation(*args, current=4)
    assert len(both.data) == 4 and {t.name for t in both.data} == {"scaled: QKᵀ/√d_k", "no scaling: QKᵀ"}
    assert both.layout.xaxis.type == "log" and len(both.layout.shapes) == 2
    only = plot_saturation(*args, show_scaled=False)
    assert len(only.data) == 2 and list(only.data[0].y) == [0.3, 0.5, 0.8]


def test_softmax_bars_show_each_key_weight():
    fig = plot_softmax_bars({"scaled": [0.7311, 0.2689]})
    assert list(fig.data[0].x) == ["k1", "k2"] and list(fig.data[0].text) == ["0.7311", "0.2689"]


def test_softmax_bars_name_the_keys_escaped_and_write_numbers_only_when_they_fit():
    few = plot_softmax_bars({"a": [0.25, 0.75]}, keys=["<b>", "cat"]).data[0]
    assert list(few.x) == ["&lt;b&gt; ·0", "cat ·1"] and list(few.text) == ["0.2500", "0.7500"]
    many = plot_softmax_bars({"a": np.full(13, 1 / 13)}).data[0]
    assert many.x[0] == "k1" and many.text is None and "%{customdata}" in many.hovertemplate
