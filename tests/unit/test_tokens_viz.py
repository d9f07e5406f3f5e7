"""viz/tokens.py draws what it is given: one bar per cut with its length and N², escaped names, the one-hot
column as a strip with the 1 named where it is."""
import numpy as np
import pytest

from viz.tokens import plot_one_hot, plot_sequence_costs


def test_cost_bars_carry_each_cuts_length_and_pairs():
    fig = plot_sequence_costs(np.array([3, 5, 12]), np.array([9, 25, 144]), labels=["words", "<b>BPE</b>", "bytes"])
    lengths, pairs = fig.data
    assert list(lengths.y) == [3, 5, 12] and list(pairs.y) == [9, 25, 144]
    assert list(lengths.x) == ["words", "&lt;b&gt;BPE&lt;/b&gt;", "bytes"] == list(pairs.x)
    assert list(pairs.text) == ["9", "25", "144"]
    assert "N = %{y:,} tokens" in lengths.hovertemplate and "N² = %{y:,}" in pairs.hovertemplate


def test_cost_bars_refuse_arrays_that_do_not_match_the_labels():
    with pytest.raises(ValueError, match="2 labels, \\(3,\\) lengths and \\(3,\\) pairs must match"):
        plot_sequence_costs(np.array([1, 2, 3]), np.array([1, 4, 9]), labels=["a", "b"])


def test_one_hot_strip_marks_the_single_one_and_escapes_its_label():
    column = np.zeros(10)
    column[7] = 1.0
    fig = plot_one_hot(column, hot_label="<i>walk</i>")
    z = np.asarray(fig.data[0].z)
    assert z.shape == (1, 10) and z[0, 7] == 1 and z.sum() == 1
    (note,) = fig.layout.annotations
    assert note.x == 7 and note.text == "id 7: &lt;i&gt;walk&lt;/i&gt; = 1"
    assert fig.layout.xaxis.title.text == "vocabulary id (0 … 9)"
