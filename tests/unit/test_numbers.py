"""app_pages._numbers and the sentences built with it: plain decimals and singular/plural counts."""
import numpy as np
import pytest

from app_pages._numbers import count, plain, prob
from app_pages.views.masks import describe
from model.analysis import reach
from viz.masks import plot_coverage


@pytest.mark.parametrize("value, shown", [(1.43e-06, "0.0000014"), (0.1234, "0.12"), (0.0, "0"), (12.345, "12"),
                                          (-3.5e-05, "-0.000035"), (2.2e-16, "0.00000000000000022"),
                                          (float("-inf"), "−∞")])
def test_plain_writes_fixed_decimals_never_e_notation(value, shown):
    assert plain(value) == shown


def test_probabilities_keep_four_decimals_and_tiny_ones_two_digits():
    assert prob(0.123456) == "0.1235" and prob(1.43e-06) == "0.0000014"


def test_one_layer_is_singular_wherever_layers_are_counted():
    assert count(1, "layer") == "1 layer" and count(2, "layer") == "2 layers" and count(0, "layer") == "0 layers"
    assert "after **1 layer** it reaches 50.0% of the pairs" in describe(reach.Connectivity(1, False, 0.5))
    assert describe(reach.Connectivity(1, True, 1.0)).endswith("after **1 layer**")
    hover = plot_coverage({"A": np.array([0.5, 1.0])}).data[0].customdata
    assert list(hover) == ["after 1 layer", "after 2 layers"]
