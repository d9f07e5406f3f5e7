"""The lecture's printed numbers (seed-42 worked example and the exercise) to 4 decimals, and one head
computed four ways: row form, the textbook's column form, a per-vector loop and the model's explicit path."""
import numpy as np
import pytest
import torch

from model import reference
from model.analysis import steps
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer

# Every matrix the lecture (shared/seeds/004) prints, copied from its output.
LECTURE = {
    "X": [[0.4967, -0.1383, 0.6477, 1.523], [-0.2342, -0.2341, 1.5792, 0.7674]],
    "W_Q": [[-0.4695, 0.5426, -0.4634], [-0.4657, 0.242, -1.9133], [-1.7249, -0.5623, -1.0128],
            [0.3142, -0.908, -1.4123]],
    "W_K": [[1.4656, -0.2258, 0.0675], [-1.4247, -0.5444, 0.1109], [-1.151, 0.3757, -0.6006],
            [-0.2917, -0.6017, 1.8523]],
    "W_V": [[-0.0135, -1.0577, 0.8225], [-1.2208, 0.2089, -1.9597], [-1.3282, 0.1969, 0.7385],
            [0.1714, -0.1156, -0.3011]],
    "Q": [[-0.8075, -1.511, -2.7725], [-2.2639, -1.7685, -2.1268]],
    "K": [[-0.2648, -0.7099, 2.4502], [-2.0512, 0.3119, 0.4312]],
    "V": [[-0.4371, -0.6028, 0.6993], [-1.677, 0.421, 1.2013]],
    "scores": [[-5.5067, -0.0105], [-3.3562, 3.175]],
    "scaled": [[-3.1793, -0.0061], [-1.9377, 1.8331]],
    "weights": [[0.0402, 0.9598], [0.0225, 0.9775]],
    "Z": [[-1.6272, 0.3799, 1.1811], [-1.6491, 0.398, 1.19]],
}


@pytest.mark.parametrize("name", list(LECTURE))
def test_worked_example_reproduces_every_printed_matrix(name):
    got = reference.worked_example()[name]
    np.testing.assert_array_equal(np.round(got, 4), np.array(LECTURE[name]))


def test_worked_example_rows_of_weights_sum_to_one():
    assert np.allclose(reference.worked_example()["weights"].sum(1), 1.0, atol=1e-15)


def test_exercise_gives_the_lectures_weights_and_output():
    e = reference.exercise()
    np.testing.assert_array_equal(e["scaled"], [1.5, 0.5])
    np.testing.assert_array_equal(np.round(e["exp"], 4), [4.4817, 1.6487])
    assert round(e["exp"].sum(), 4) == 6.1304
    np.testing.assert_array_equal(np.round(e["weights"], 4), [0.7311, 0.2689])
    np.testing.assert_array_equal(np.round(e["z"], 4), [0.7311, 0.2689])


def test_column_form_and_loop_agree_with_row_form_on_the_worked_example():
    ex = reference.worked_example()
    Z, _ = reference.attention(ex["Q"], ex["K"], ex["V"])
    np.testing.assert_allclose(Z, ex["Z"], atol=1e-15)
    np.testing.assert_allclose(reference.attention_column_form(ex["Q"], ex["K"], ex["V"]).T, Z, atol=1e-12)
    np.testing.assert_allclose(reference.attention_loop(ex["Q"], ex["K"], ex["V"]), Z, atol=1e-12)


def test_loop_gives_zero_for_a_fully_masked_row_and_respects_the_mask():
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(3, 4, 5))
    mask = np.tril(np.ones((4, 4), bool))
    mask[2] = False
    loop = reference.attention_loop(Q, K, V, mask)
    Z, w = reference.attention(Q, K, V, mask)
    np.testing.assert_allclose(loop, Z, atol=1e-12)
    assert not loop[2].any() and not w[2].any()


@pytest.mark.parametrize("norm", ["post", "pre"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("layer,head", [(0, 0), (1, 3)])
def test_row_column_loop_and_model_explicit_path_agree(norm, causal, layer, head):
    torch.manual_seed(1)
    cfg = ModelConfig(vocab_size=40, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=32, norm=norm)
    model = Transformer(cfg).eval()
    ids = np.array([2, 9, 17, 5, 30, 11, 3])
    T = len(ids)
    mask = np.tril(np.ones((T, T), bool)) if causal else None
    X = steps.layer_inputs(model, ids)[layer]
    s = steps.head_steps(model, X, layer, head, mask)
    column = reference.attention_column_form(s.Q, s.K, s.V, mask).T
    loop = reference.attention_loop(s.Q, s.K, s.V, mask)
    live = steps.explicit_path(model, X, layer, mask)
    for other in (column, loop, live["heads"][head]):
        np.testing.assert_allclose(other, s.Z, atol=1e-5)
    np.testing.assert_allclose(live["q"][head], s.Q, atol=1e-5)
    np.testing.assert_allclose(live["weights"][head], s.weights, atol=1e-5)
    np.testing.assert_allclose(live["scores"][head], s.scaled, atol=1e-5)     # -inf in the same places
    assert max(steps.agreement(s, model, mask).values()) <= 1e-5
