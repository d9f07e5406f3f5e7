"""model.analysis.steps on tiny random models: the head slices follow nn.Linear's y = x Wᵀ + b, multi-head and
the layer trace reproduce the model's own outputs, the causal variant, and the √d_k saturation."""
import numpy as np
import pytest
import torch

from model.analysis import steps
from model.data.word_tokenizer import WordTokenizer
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer

IDS = np.array([2, 9, 17, 5, 30, 11, 3, 21])


def tiny(norm="post", kind="encoder", activation="relu", seed=0):
    torch.manual_seed(seed)
    cfg = ModelConfig(vocab_size=40, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=32, norm=norm,
                      kind=kind, activation=activation)
    return Transformer(cfg).eval()


def test_head_slice_is_the_transposed_row_block_of_the_linear_weight(tiny_model):
    p = steps.head_params(tiny_model, 1, 2)
    attn = tiny_model.encoder.layers[1].self_attn
    x = torch.randn(5, 32)
    q_all = attn.w_q(x).detach().numpy()                        # (5, C): head 2 owns columns 16..23
    np.testing.assert_allclose(x.numpy() @ p["W_Q"] + p["b_Q"], q_all[:, 16:24], atol=1e-5)
    assert p["W_Q"].shape == (32, 8) and p["b_V"].shape == (8,)


def test_head_steps_shapes_and_rows_of_weights_sum_to_one(tiny_model):
    X = steps.layer_inputs(tiny_model, IDS)
    assert X.shape == (3, 8, 32) and X.dtype == np.float64
    s = steps.head_steps(tiny_model, X[0], 0, 1)
    assert s.Q.shape == s.K.shape == s.V.shape == s.Z.shape == (8, 8)
    assert s.scores.shape == s.weights.shape == (8, 8)
    np.testing.assert_allclose(s.scaled, s.scores / np.sqrt(8))
    np.testing.assert_allclose(s.weights.sum(1), 1.0, atol=1e-12)
    assert set(s.arrays()) >= {"X", "W_Q", "W_K", "W_V", "Q", "K", "V", "scores", "scaled", "weights", "Z"}


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_multi_head_concat_and_w_o_reproduce_the_attention_output(norm):
    model = tiny(norm)
    X = steps.layer_inputs(model, IDS)[1]
    mh = steps.multi_head(model, X, 1)
    assert mh["heads"].shape == (4, 8, 8) and mh["concat"].shape == (8, 32) and mh["W_O"].shape == (32, 32)
    np.testing.assert_array_equal(mh["concat"][:, 8:16], mh["heads"][1])
    np.testing.assert_allclose(mh["out"], steps.explicit_path(model, X, 1)["out"], atol=1e-5)


@pytest.mark.parametrize("norm", ["post", "pre"])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_layer_trace_ends_at_the_models_own_layer_output(norm, activation):
    model = tiny(norm, activation=activation)
    hidden = steps.layer_inputs(model, IDS)
    for layer in (0, 1):
        trace = steps.layer_trace(model, hidden[layer], layer, 3)
        np.testing.assert_allclose(trace[-1].vector, hidden[layer + 1][3], atol=1e-5)
        np.testing.assert_array_equal(trace[0].vector, hidden[layer][3])


def test_layer_trace_shows_layer_norm_standardising_and_relu_zeroing():
    model = tiny("post")
    trace = steps.layer_trace(model, steps.layer_inputs(model, IDS)[0], 0, 2)
    standard = [t for t in trace if t.name.endswith("standardised")]
    assert len(standard) == 2
    for t in standard:
        assert abs(t.mean) < 1e-12 and t.var == pytest.approx(1.0, abs=1e-3)
    hidden = next(t for t in trace if t.name.startswith("FFN hidden"))
    assert hidden.vector.shape == (64,) and hidden.vector.min() == 0.0 and "ReLU" in hidden.name


def test_post_and_pre_traces_differ_for_the_same_weights():
    model = tiny("post")
    X = steps.layer_inputs(model, IDS)[0]
    post, pre = steps.layer_trace(model, X, 0, 2, norm="post"), steps.layer_trace(model, X, 0, 2, norm="pre")
    assert post[-1].name.startswith("y = LayerNorm") and pre[-1].name == "y = h + FFN"
    assert not np.allclose(post[-1].vector, pre[-1].vector)


def test_causal_head_zeroes_the_future_exactly_and_matches_the_model():
    model = tiny("post")
    X = steps.layer_inputs(model, IDS)[0]
    mask = np.tril(np.ones((8, 8), bool))
    s = steps.head_steps(model, X, 0, 0, mask)
    assert np.all(np.isneginf(s.scaled[~mask])) and np.all(s.weights[~mask] == 0.0)
    np.testing.assert_allclose(s.weights.sum(1), 1.0, atol=1e-12)
    assert s.weights[0, 0] == 1.0
    assert max(steps.agreement(s, model, mask).values()) <= 1e-5


def test_decoder_model_mask_is_causal_and_layer_inputs_use_it():
    model = tiny(kind="decoder")
    mask = steps.model_mask(model, 5)
    np.testing.assert_array_equal(mask, np.tril(np.ones((5, 5), bool)))
    assert steps.model_mask(tiny(), 5) is None
    # a later token must not change an earlier token's hidden state in a causal model
    a = steps.layer_inputs(model, IDS)
    b = steps.layer_inputs(model, np.concatenate([IDS[:4], [7, 7, 7, 7]]))
    np.testing.assert_allclose(a[:, :4], b[:, :4], atol=1e-5)


def test_encode_text_bounds_tokens_and_flags_unknown_words():
    tok = WordTokenizer.build(["the cat sat on the mat"])
    model = tiny()
    ids, tokens, notices = steps.encode_text(model, tok, "the cat sat " * 20, "cls_sep", max_tokens=10)
    assert len(ids) == len(tokens) == 10 and tokens[0] == "[CLS]"
    assert "62 tokens" in str(notices[0])
    _, tokens, notices = steps.encode_text(model, tok, "the dog sat", "cls_sep")
    assert tokens == ["[CLS]", "the", "dog", "sat", "[SEP]"] and "dog" in str(notices[-1])
    _, tokens, _ = steps.encode_text(tiny(kind="decoder"), tok, "the cat", "bos")
    assert tokens == ["[BOS]", "the", "cat"]


def test_softmax_saturates_and_its_gradient_vanishes_without_scaling():
    d_ks = [1, 4, 16, 64, 256, 1024]
    sat = steps.saturation(d_ks, n_keys=8, n_samples=128, seed=0)
    assert np.all(np.diff(sat["max_unscaled"]) > 0) and sat["max_unscaled"][-1] > 0.95
    assert np.all(np.diff(sat["grad_unscaled"][1:]) < 0) and sat["grad_unscaled"][-1] < 0.1
    assert np.ptp(sat["max_scaled"]) < 0.1 and sat["grad_scaled"].min() > 0.3      # scaling keeps it steady
    np.testing.assert_allclose(sat["max_scaled"][0], sat["max_unscaled"][0])        # √1 = 1


def test_softmax_example_jacobian_norm_matches_finite_differences():
    ex = steps.softmax_example(16, scaled=True, n_keys=5, seed=2)
    z = ex["logits"]
    jac = np.empty((5, 5))
    for j in range(5):
        e = np.zeros(5)
        e[j] = 1e-6
        jac[:, j] = (np.exp(z + e) / np.exp(z + e).sum() - np.exp(z - e) / np.exp(z - e).sum()) / 2e-6
    assert ex["grad_norm"] == pytest.approx(np.linalg.norm(jac), rel=1e-6)
    assert ex["max_weight"] == pytest.approx(ex["weights"].max())
    np.testing.assert_allclose(ex["logits"], ex["scores"] / 4.0)


def test_without_scaling_on_the_exercise_scores_is_more_peaked():
    """The lecture's exercise: scores 3 and 1, d_k = 4. Scaled, softmax([1.5, 0.5]) = [0.7311, 0.2689] (the printed
    numbers); without the ÷2, softmax([3, 1]) = [e²/(e²+1), 1/(e²+1)] = [0.8808, 0.1192]."""
    ex = steps.without_scaling(np.array([3.0, 1.0]), 4)
    np.testing.assert_allclose(ex["weights_scaled"], [0.7311, 0.2689], atol=5e-5)
    top = np.exp(2) / (np.exp(2) + 1)
    np.testing.assert_allclose(ex["weights_unscaled"], [top, 1 - top], atol=1e-12)
    entropy = -(top * np.log(top) + (1 - top) * np.log(1 - top))
    assert ex["entropy_unscaled"] == pytest.approx(entropy) and ex["entropy_scaled"] > ex["entropy_unscaled"]
    assert ex["change"] == "more peaked"


def test_without_scaling_is_about_the_same_for_equal_or_one_hot_scores_and_ignores_masked_keys():
    same = steps.without_scaling(np.array([0.7, 0.7, 0.7, -np.inf]), 64)     # the masked key gets 0 both ways
    np.testing.assert_allclose(same["weights_unscaled"], [1 / 3, 1 / 3, 1 / 3, 0], atol=1e-15)
    assert same["change"] == "about the same" and same["entropy_scaled"] == pytest.approx(np.log(3))
    peaked = steps.without_scaling(np.array([80.0, 0.0]), 16)               # scaled: 1/(1+e⁻²⁰) already ≈ 1
    assert peaked["max_scaled"] > 0.999 and peaked["change"] == "about the same"
    flatter = steps.without_scaling(np.array([-1.0, 1.0]), 0.25)           # d_k < 1: "scaling" sharpens
    assert flatter["change"] == "flatter"
