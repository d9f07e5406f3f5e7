"""The Witten-Bell bigram baseline against probabilities worked out by hand on a tiny corpus."""
import math

import numpy as np
import pytest

from model.data.bigram import Bigram

# train on 0 1 0 2 (V = 3): unigram counts 2, 1, 1 of N = 4 -> add-one P_uni = 3/7, 2/7, 2/7;
# context 0: c = 2, T = 2 (1 and 2 follow); context 1: c = 1, T = 1; context 2: never a context
MODEL = Bigram.fit([[0, 1, 0, 2]], vocab_size=3)


@pytest.mark.parametrize("prev, nxt, expected", [
    (0, 1, (1 + 2 * 2 / 7) / (2 + 2)),       # seen pair: 11/28
    (0, 0, (0 + 2 * 3 / 7) / (2 + 2)),       # unseen after a seen context: 3/14
    (1, 0, (1 + 1 * 3 / 7) / (1 + 1)),       # 5/7
    (1, 2, (0 + 1 * 2 / 7) / (1 + 1)),       # 1/7
    (2, 0, 3 / 7),                           # unseen context: the unigram
])
def test_witten_bell_probabilities_match_hand_computation(prev, nxt, expected):
    assert MODEL.prob(np.array([prev]), np.array([nxt]))[0] == pytest.approx(expected)


def test_each_context_is_a_distribution():
    for prev in range(3):
        assert MODEL.prob(np.full(3, prev), np.arange(3)).sum() == pytest.approx(1.0)


def test_perplexity_of_a_tiny_heldout_sequence():
    # 0 -> 1 (11/28), 1 -> 2 (1/7): perplexity = (28/11 * 7) ** 0.5
    assert MODEL.perplexity([[0, 1, 2]]) == pytest.approx(math.sqrt(28 / 11 * 7))
    assert MODEL.unigram_perplexity([[0, 1, 2]]) == pytest.approx(7 / 2)
