"""Head ablation (model/engine/ablation.py, model/analysis/ablation.py, model/analysis/ablation_eval.py): an ablated
head's output is exactly what the rule says (zeros, or the given mean) on every attention path, checked against the
numpy reference; only later layers change; and the held-out effects equal a plain, whole-model recomputation."""
import numpy as np
import pytest
import torch

from model import checkpoints
from model import reference as R
from model.analysis import ablation as abl
from model.analysis.ablation_eval import head_effects
from model.data import course_world as corpus
from model.data import text_input
from model.engine.ablation import ablating
from model.engine.attention import MultiHeadAttention
from model.engine.capture import capturing
from model.engine.config import preset
from model.engine.transformer import Transformer
from model.tasks.coreference import head_accuracy


def _np(t):
    return t.detach().double().numpy()


def _reference_heads(m: MultiHeadAttention, x: torch.Tensor):
    """(heads (H, T, D), W_O in row form, b_O) of the numpy reference for one sequence."""
    _, _, heads = R.multi_head_attention(_np(x[0]), W_Q=_np(m.w_q.weight).T, W_K=_np(m.w_k.weight).T,
                                         W_V=_np(m.w_v.weight).T, W_O=_np(m.w_o.weight).T, n_heads=m.n_heads,
                                         b_Q=_np(m.w_q.bias), b_K=_np(m.w_k.bias), b_V=_np(m.w_v.bias),
                                         b_O=_np(m.w_o.bias))
    return heads, _np(m.w_o.weight).T, _np(m.w_o.bias)


@pytest.mark.parametrize("path", ["fast", "weights", "qkv"])
@pytest.mark.parametrize("mode", ["zero", "mean"])
def test_an_ablated_head_outputs_exactly_what_the_rule_says_on_every_path(path, mode):
    torch.manual_seed(0)
    m = MultiHeadAttention(16, 4).eval()
    x = torch.randn(1, 6, 16)
    mean = torch.randn(4)                                           # a head's "mean output" (D = 4)
    edit = {1: None if mode == "zero" else mean}
    keep = {"fast": None, "weights": ("weights",), "qkv": ("weights", "q", "k", "v")}[path]
    with torch.inference_mode(), ablating({m: edit}):
        if keep is None:
            out, _ = m(x)
        else:
            with capturing(*keep):
                out, _ = m(x)
    heads, w_o, b_o = _reference_heads(m, x)
    heads[1] = 0.0 if mode == "zero" else _np(mean)                 # the rule: head 1's z replaced at every token
    expected = np.concatenate(list(heads), axis=-1) @ w_o + b_o
    np.testing.assert_allclose(_np(out[0]), expected, atol=1e-5)


def test_a_zeroed_head_no_longer_depends_on_its_own_values():
    torch.manual_seed(1)
    m = MultiHeadAttention(16, 4).eval()
    x = torch.randn(1, 5, 16)
    with torch.inference_mode(), ablating({m: {2: None}}):
        before, _ = m(x)
        m.w_v.weight[8:12] += 5.0                                   # head 2's value rows (D = 4)
        after, _ = m(x)
    assert torch.equal(before, after)


def test_outside_the_block_nothing_is_ablated_and_other_modules_are_untouched():
    torch.manual_seed(2)
    a, b = MultiHeadAttention(16, 4).eval(), MultiHeadAttention(16, 4).eval()
    x = torch.randn(1, 5, 16)
    with torch.inference_mode():
        plain_a, plain_b = a(x)[0], b(x)[0]
        with ablating({a: {0: None}}):
            cut_a, same_b = a(x)[0], b(x)[0]
        again = a(x)[0]
    assert not torch.allclose(plain_a, cut_a) and torch.equal(plain_b, same_b) and torch.equal(plain_a, again)


def _tiny(kind="encoder"):
    torch.manual_seed(3)
    return Transformer(preset("tiny", 50, n_layers=3, kind=kind)).eval()


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_only_layers_after_the_ablated_head_change(kind):
    model = _tiny(kind)
    ids = np.arange(4, 16)
    before = abl.run_ablated(model, ids)
    after = abl.run_ablated(model, ids, [(1, 0)], "zero")
    change = abl.attention_change(before.weights, after.weights)     # (3, 2)
    assert np.array_equal(before.weights[:2], after.weights[:2]) and (change[:2] == 0).all()
    assert (change[2] > 1e-4).all()
    if kind == "decoder":                                           # still causal after the ablation
        assert np.all(np.triu(after.weights[2], 1) == 0)


def test_head_means_are_the_mean_over_tokens_of_weights_times_values():
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(5), size=(2, 3, 5))                   # (L, H, N, N)
    v = rng.standard_normal((2, 3, 5, 4))
    direct = np.stack([[np.mean([w[lay, h, i] @ v[lay, h] for i in range(5)], 0) for h in range(3)]
                       for lay in range(2)])
    np.testing.assert_allclose(abl.head_means(w, v), direct, atol=1e-6)
    np.testing.assert_allclose(abl.head_outputs(w, v).mean(2), direct, atol=1e-6)


def test_mean_ablation_with_the_texts_own_means_keeps_the_mean_contribution():
    """Replacing z_h by its mean over the text leaves the mean over tokens of the layer's output unchanged."""
    model = _tiny()
    ids = torch.arange(4, 14)[None]
    with torch.inference_mode(), capturing("weights", "v"):
        out = model.encode(ids)
    inter = out.intermediates[0]
    means = abl.head_means(inter.weights[0:1].transpose(0, 1).numpy(), inter.v[0:1].transpose(0, 1).numpy())
    attn = model.encoder.layers[0].self_attn
    with torch.inference_mode():
        x = model.encoder.layers[0].norm1(out.hidden[0]) if model.config.norm == "pre" else out.hidden[0]
        plain = attn(x)[0]
        with ablating({attn: {1: torch.as_tensor(means[1, 0])}}):
            mean_cut = attn(x)[0]
    np.testing.assert_allclose(_np(mean_cut.mean(1)), _np(plain.mean(1)), atol=1e-5)
    assert not torch.allclose(mean_cut, plain)


def test_output_change_is_zero_without_ablation_and_matches_float64():
    model = _tiny()
    ids = np.arange(4, 14)
    base = abl.run_ablated(model, ids)
    kl, flipped, top = abl.output_change(model, base.final, base.final)
    assert np.allclose(kl, 0, atol=1e-6) and not flipped.any() and (top.ids[:, 0] == top.ids[:, 1]).all()
    cut = abl.run_ablated(model, ids, [(0, 1)], "zero")
    kl, flipped, _ = abl.output_change(model, base.final, cut.final)
    p, q = abl.probabilities(model, base.final), abl.probabilities(model, cut.final)
    np.testing.assert_allclose(kl, abl.kl_divergence(p, q), atol=1e-5)
    assert np.array_equal(flipped, p.argmax(-1) != q.argmax(-1))


@pytest.fixture(scope="module")
def coref():
    if "coref_encoder" not in checkpoints.shipped():
        pytest.fail("coref_encoder is not in assets/: `python -m model.train coref_encoder`")
    model, meta = checkpoints.load("coref_encoder")
    return model, text_input.tokenizer_of(meta), tuple(meta["coref_head"])


def _answers_directly(model, tok, samples, heads=()):
    """The cloze head's two-noun answer, the whole model run at once (no shortcut), heads zero-ablated."""
    right = []
    edits = abl.edits_for(model, heads, "zero")
    for s in samples:
        enc = text_input.encode(tok, s.text, "cls_sep")
        r, words = s.refs[0], corpus.split_words(s.text)
        other = next(i for i in (words.index(n, 0, r.pronoun_index) for n in s.pair) if i != r.antecedent_index)
        with torch.inference_mode(), ablating(edits):
            x = model.encode(torch.tensor([enc.ids])).x
            logits = model.cloze_logits(x, torch.tensor([0]), torch.tensor([enc.words[r.pronoun_index + 1][0]]))[0]
        ante, oth = (enc.ids[enc.words[i + 1][0]] for i in (r.antecedent_index, other))
        right.append(bool(logits[ante] > logits[oth]))
    return np.mean(right)


def test_held_out_effects_equal_a_whole_model_recomputation(coref):
    model, tok, head = coref
    samples = corpus.eval_samples("heldout_pairs", 4)
    fx = head_effects(model, tok, samples, head, "zero")
    assert fx.answer_base == pytest.approx(_answers_directly(model, tok, samples))
    for cell in [(0, 0), head]:
        assert fx.answer_without[cell] == pytest.approx(_answers_directly(model, tok, samples, [cell]))
    assert fx.pointing_base == pytest.approx(head_accuracy(model, tok, samples)[head])
    assert (fx.pointing_without[head[0]:] == fx.pointing_base).all()      # its own layer and later: unchanged
