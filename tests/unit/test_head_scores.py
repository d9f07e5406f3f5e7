"""Head scores on attention matrices whose scores are known by construction, and on a model whose attention
is set by hand."""
import numpy as np
import pytest
import torch

from model.analysis.head_scores import (
    best,
    induction_pattern_scores,
    induction_scores,
    previous_token_scores,
    repeated_spans,
)
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer


def previous_pattern(T: int) -> np.ndarray:
    """Each query i ≥ 1 puts all its weight on i - 1; query 0 on itself."""
    w = np.zeros((T, T))
    w[0, 0] = 1.0
    w[np.arange(1, T), np.arange(T - 1)] = 1.0
    return w


def causal_uniform(T: int) -> np.ndarray:
    """Query i spreads its weight evenly over keys 0..i."""
    return np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]


def test_an_exact_previous_token_head_scores_one():
    w = np.stack([np.stack([previous_pattern(10), np.eye(10)])])          # (L=1, H=2, T, T)
    assert previous_token_scores(w) == pytest.approx(np.array([[1.0, 0.0]]))


def test_uniform_causal_attention_scores_the_mean_of_one_over_i_plus_one():
    T = 6
    expected = np.mean([1 / (i + 1) for i in range(1, T)])                 # (1/2 + 1/3 + 1/4 + 1/5 + 1/6) / 5
    assert previous_token_scores(causal_uniform(T)[None, None]) == pytest.approx(np.array([[expected]]))
    assert expected == pytest.approx(0.29)


def test_batched_weights_average_over_the_batch_and_accept_tensors_per_layer():
    # layer 0: one text previous-token, the other self -> 0.5; layer 1: both previous-token -> 1
    layer0 = torch.tensor(np.stack([previous_pattern(5), np.eye(5)]))[:, None].float()    # (B=2, H=1, T, T)
    layer1 = torch.tensor(np.stack([previous_pattern(5)] * 2))[:, None].float()
    assert previous_token_scores([layer0, layer1]) == pytest.approx(np.array([[0.5], [1.0]]))


def test_a_single_token_has_no_previous_token():
    assert previous_token_scores(np.ones((2, 3, 1, 1))).tolist() == [[0.0] * 3] * 2


def test_bad_shapes_are_refused_with_their_shape():
    with pytest.raises(ValueError, match=r"got shape \(3, 4\)"):
        previous_token_scores(np.ones((3, 4)))


def induction_pattern(start: int, span: int) -> np.ndarray:
    """Positions of the second copy attend to the token after their first occurrence; others to themselves."""
    T = start + 2 * span
    w = np.eye(T)
    for k in range(span):
        p = start + span + k
        w[p] = 0.0
        w[p, start + k + 1] = 1.0
    return w


def test_an_exact_induction_head_scores_one_and_a_previous_token_head_zero():
    start, span = 1, 5
    w = np.stack([induction_pattern(start, span), previous_pattern(start + 2 * span)])[None]   # (1, 2, T, T)
    assert induction_pattern_scores(w, start, span) == pytest.approx(np.array([[1.0, 0.0]]))


def test_uniform_causal_attention_has_an_induction_score_of_mean_one_over_keys():
    start, span = 1, 4
    T = start + 2 * span
    expected = np.mean([1 / (p + 1) for p in range(start + span, T)])      # query p sees p + 1 keys
    assert induction_pattern_scores(causal_uniform(T)[None, None], start, span) == pytest.approx(np.array([[expected]]))


def test_repeated_spans_repeat_a_span_without_inner_repeats_and_stay_in_range():
    seqs = repeated_spans(vocab_size=50, span=12, n_seqs=4, seed=3, low=7)
    assert seqs.shape == (4, 24)
    assert (seqs[:, :12] == seqs[:, 12:]).all()
    assert all(len(set(row[:12])) == 12 for row in seqs.tolist())
    assert seqs.min() >= 7 and seqs.max() < 50


def test_best_names_the_layer_and_head():
    assert best(np.array([[0.1, 0.2], [0.7, 0.3]])) == (pytest.approx(0.7), (1, 0))


def test_induction_scores_of_a_model_are_one_row_per_layer_and_within_zero_and_one():
    torch.manual_seed(0)
    model = Transformer(ModelConfig(vocab_size=40, d_model=16, n_heads=2, n_layers=3, d_ff=32, max_len=32,
                                    kind="decoder")).eval()
    scores = induction_scores(model, span=10, n_seqs=3, prefix=[1], low=5)
    assert scores.shape == (3, 2)
    assert ((scores >= 0) & (scores <= 1)).all()
    with pytest.raises(ValueError, match="does not fit 32 positions"):
        induction_scores(model, span=16, prefix=[1])
