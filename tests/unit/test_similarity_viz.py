"""viz.similarity on small arrays: the matrix's cells and hovers, typed markup kept as text, and the pooling figure's
three rows over the same dimensions (states and mean on one signed scale, the unit vector on its own)."""
import numpy as np

from viz.similarity import plot_pooling, plot_similarity, sentence_labels


def test_the_matrix_writes_each_cosine_to_three_decimals_and_names_both_sentences_on_hover():
    sim = np.array([[1.0, 0.66601], [0.66601, 1.0]])
    fig = plot_similarity(sim, ["A <b>bold</b> one.", "Another."])
    (trace,) = fig.data
    assert [list(row) for row in trace.text] == [["1.000", "0.666"], ["0.666", "1.000"]]
    assert list(trace.y) == ["1. A &lt;b&gt;bold&lt;/b&gt; one.", "2. Another."]
    assert "1. A &lt;b&gt;bold&lt;/b&gt; one." in trace.customdata[0][1] and "0.666010" in trace.customdata[0][1]
    assert (trace.zmin, trace.zmax, trace.colorscale[0][1]) == (0.0, 1.0, "rgb(247,251,255)")   # Blues, from white


def test_a_long_sentence_is_clipped_on_the_axis_only():
    long = "word " * 20
    assert sentence_labels([long]) == ["1. word word word word word wo…"]            # 27 characters and "…"
    fig = plot_similarity(np.ones((1, 1)), [long])
    assert "word word word word word word word word" in fig.data[0].customdata[0][0]


def test_the_pooling_figure_draws_states_mean_and_unit_vector_over_the_same_dimensions():
    states = np.arange(12, dtype=np.float64).reshape(3, 4) - 5.5                # (N, C) = (3, 4)
    mean = states.mean(0)
    fig = plot_pooling(states, ["[CLS]", "hi", "[SEP]"], mean, mean / np.linalg.norm(mean))
    s, u, v = fig.data
    assert np.asarray(s.z).shape == (3, 4) and np.asarray(u.z).shape == np.asarray(v.z).shape == (1, 4)
    np.testing.assert_allclose(np.asarray(v.z)[0], mean / np.linalg.norm(mean))
    assert s.coloraxis == u.coloraxis == "coloraxis" and v.coloraxis == "coloraxis2"
    assert fig.layout.coloraxis.cmid == 0 and fig.layout.coloraxis2.cmid == 0
    assert list(s.y) == ["[CLS] ·0", "hi ·1", "[SEP] ·2"]
