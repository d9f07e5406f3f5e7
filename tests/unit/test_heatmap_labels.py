"""One meaning for "·N" on heatmap axes: a token's position. Rows that are named (heads, layers) keep their names;
the numbering of tokens counts positions from 0 and tells repeated tokens apart."""
import numpy as np
import pytest

from viz.heatmap import plot_heatmap


def test_token_rows_are_numbered_by_position_and_named_rows_are_not():
    m = np.full((2, 3), 1 / 3)
    tokens = plot_heatmap(m, x_labels=["it", "<b>", "it"], y_labels=["a", "a"]).data[0]
    assert list(tokens.x) == ["it ·0", "&lt;b&gt; ·1", "it ·2"] and list(tokens.y) == ["a ·0", "a ·1"]
    heads = plot_heatmap(m, x_labels=["it", "was", "it"], y_labels=["L0 H0", "L0 H1"], y_names=True).data[0]
    assert list(heads.y) == ["L0 H0", "L0 H1"] and list(heads.x) == ["it ·0", "was ·1", "it ·2"]


def test_named_rows_must_be_distinct():
    with pytest.raises(ValueError, match="repeat"):
        plot_heatmap(np.zeros((2, 2)), x_labels=["a", "b"], y_labels=["L0 H0", "L0 H0"], y_names=True)
