"""Activation patching in the engine (model/engine/patching.py): a patched state is exactly what the numpy reference
computes with that state replaced, on every attention path; patching every state of A into B reproduces A and
patching nothing reproduces B; a decoder's patch never reaches earlier positions; bad sites refused with a message.
The shipped model, the map and the command: test_patching_shipped.py."""
import numpy as np
import pytest
import torch

from model import reference as R
from model.data import course_world as corpus
from model.engine.ablation import ablating
from model.engine.attention import MultiHeadAttention
from model.engine.capture import capturing
from model.engine.patching import Patch, patching
from model.engine.sparse import SlidingWindow
from tests.unit.patching_models import _np, _run, _tiny

PATHS = ["fast", "kernel", "explicit", "into"]        # SDPA, a kernel, capturing(q, k, …), capturing() (in place)
TROPHY = next(p for p in corpus.MINIMAL_PAIRS if p[0] == "big / small")



def _mha(path: str, C=16, H=4) -> MultiHeadAttention:
    torch.manual_seed(0)
    m = MultiHeadAttention(C, H, kernel=SlidingWindow(width=64) if path == "kernel" else None).eval()
    for p in m.parameters():                                   # unit-scale weights: patches move things visibly
        torch.nn.init.normal_(p, std=0.5)
    return m


def _call(m, x, path: str):
    """(out, Intermediates or None) of m on x by the path's rule."""
    with torch.inference_mode():
        if path in ("fast", "kernel"):
            return m(x)
        with capturing(*(("weights", "q", "k", "v") if path == "explicit" else ())):
            return m(x)


def _ref(m, x):
    """Q, K, V (T, C) and W_O, b_O of the numpy reference for one sequence."""
    x = _np(x[0])
    return (x @ _np(m.w_q.weight).T + _np(m.w_q.bias), x @ _np(m.w_k.weight).T + _np(m.w_k.bias),
            x @ _np(m.w_v.weight).T + _np(m.w_v.bias), _np(m.w_o.weight).T, _np(m.w_o.bias))


def _ref_out(Q, K, V, W_O, b_O, H):
    d = Q.shape[1] // H
    z, w = zip(*(R.attention(Q[:, h * d:(h + 1) * d], K[:, h * d:(h + 1) * d], V[:, h * d:(h + 1) * d])
                 for h in range(H)))
    return np.concatenate(z, -1) @ W_O + b_O, np.stack(w), list(z)


# ---- the engine ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", PATHS)
def test_a_head_output_patch_equals_the_reference_with_that_heads_z_replaced(path):
    m = _mha(path)
    xa, xb = torch.randn(1, 6, 16), torch.randn(1, 6, 16)
    za = _ref_out(*_ref(m, xa), 4)[2]
    where = torch.tensor([False, True, False, True, True, False])
    with patching({m: {("z", 2): Patch(torch.as_tensor(za[2], dtype=torch.float32)[None], where)}}):
        out, _ = _call(m, xb, path)
    Q, K, V, W_O, b_O = _ref(m, xb)
    _, _, zb = _ref_out(Q, K, V, W_O, b_O, 4)
    zb[2] = np.where(where.numpy()[:, None], za[2], zb[2])                 # by hand: head 2's z replaced there
    np.testing.assert_allclose(_np(out[0]), np.concatenate(zb, -1) @ W_O + b_O, atol=1e-5)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("site", ["q", "k"])
def test_q_and_k_patches_give_the_weights_the_reference_computes_from_them(path, site):
    m = _mha(path)
    xa, xb = torch.randn(1, 7, 16), torch.randn(1, 7, 16)
    Qa, Ka = _ref(m, xa)[:2]
    Q, K, V, W_O, b_O = _ref(m, xb)
    h, d, pos = 1, 4, [0, 4, 5]
    cols = slice(h * d, (h + 1) * d)
    source = Qa if site == "q" else Ka
    where = torch.zeros(7, dtype=torch.bool)
    where[pos] = True
    with patching({m: {(site, h): Patch(torch.as_tensor(source[:, cols], dtype=torch.float32)[None], where)}}):
        out, inter = _call(m, xb, path)
    target = Q if site == "q" else K
    target[pos, cols] = source[pos, cols]
    ref_out, ref_w, _ = _ref_out(Q, K, V, W_O, b_O, 4)
    np.testing.assert_allclose(_np(out[0]), ref_out, atol=1e-5)
    if inter is not None:
        np.testing.assert_allclose(_np(inter.weights[0]), ref_w, atol=1e-6)
        if inter.q is not None:                                            # what capture keeps is the patched q, k
            np.testing.assert_allclose(_np(getattr(inter, site)[0, h]), target[:, cols], atol=1e-5)


def test_a_z_patch_applies_after_an_ablation_of_the_same_head():
    m = _mha("explicit")
    x = torch.randn(1, 5, 16)
    value = torch.randn(1, 5, 4)
    where = torch.tensor([True, False, False, True, False])
    with ablating({m: {0: None}}), patching({m: {("z", 0): Patch(value, where)}}):
        out, _ = _call(m, x, "explicit")
    Q, K, V, W_O, b_O = _ref(m, x)
    _, _, z = _ref_out(Q, K, V, W_O, b_O, 4)
    z[0] = np.where(where.numpy()[:, None], _np(value[0]), 0.0)             # zeros, and the patch where asked
    np.testing.assert_allclose(_np(out[0]), np.concatenate(z, -1) @ W_O + b_O, atol=1e-5)


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
@pytest.mark.parametrize("capture", [False, True])
def test_patching_every_state_of_a_into_b_reproduces_a_and_patching_nothing_reproduces_b(kind, capture):
    model = _tiny(kind)
    a, b = torch.arange(4, 14)[None], torch.arange(20, 30)[None]
    states = _run(model, a).hidden
    run_a, run_b = _run(model, a, capture=capture), _run(model, b, capture=capture)    # the same path as the patched
    every = {model.encoder: {layer: Patch(h) for layer, h in enumerate(states)}}
    for edits, expected in ((every, _run(model, a)), ({model.encoder: {0: Patch(states[0])}}, run_a), ({}, run_b),
                            ({model.encoder: {1: Patch(states[1], torch.zeros(10, dtype=torch.bool))}}, run_b)):
        got = _run(model, b, edits, capture)
        assert torch.equal(got.x, expected.x)
        if capture:
            assert all(torch.equal(g, e) for g, e in zip(got.hidden, expected.hidden))
            assert all(torch.equal(g.weights, e.weights) for g, e in zip(got.intermediates, expected.intermediates))


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_a_residual_patch_equals_the_reference_layers_with_that_state_replaced(norm):
    model = _tiny("encoder", norm, n_layers=2)
    a, b = torch.arange(4, 11)[None], torch.arange(20, 27)[None]
    run_a, run_b = _run(model, a), _run(model, b)
    where = torch.tensor([False, False, True, False, False, True, False])
    got = _run(model, b, {model.encoder: {1: Patch(run_a.hidden[1], where)}})

    def params(blk):
        m = blk.self_attn
        return dict(W_Q=_np(m.w_q.weight).T, W_K=_np(m.w_k.weight).T, W_V=_np(m.w_v.weight).T,
                    W_O=_np(m.w_o.weight).T, b_Q=_np(m.w_q.bias), b_K=_np(m.w_k.bias), b_V=_np(m.w_v.bias),
                    b_O=_np(m.w_o.bias), ln1_g=_np(blk.norm1.weight), ln1_b=_np(blk.norm1.bias),
                    ln2_g=_np(blk.norm2.weight), ln2_b=_np(blk.norm2.bias), W1=_np(blk.ffn.lin1.weight).T,
                    b1=_np(blk.ffn.lin1.bias), W2=_np(blk.ffn.lin2.weight).T, b2=_np(blk.ffn.lin2.bias))

    layers = model.encoder.layers
    x = R.transformer_layer(_np(run_b.hidden[0][0]), params(layers[0]), 4, norm=norm)
    x = np.where(where.numpy()[:, None], _np(run_a.hidden[1][0]), x)        # the stream entering L1, patched
    x = R.transformer_layer(x, params(layers[1]), 4, norm=norm)
    np.testing.assert_allclose(_np(got.hidden[2][0]), x, atol=1e-4)
    np.testing.assert_allclose(_np(got.hidden[1][0]), np.where(where.numpy()[:, None], _np(run_a.hidden[1][0]),
                                                               _np(run_b.hidden[1][0])), atol=1e-6)


def test_a_decoder_patch_never_reaches_earlier_positions():
    model = _tiny("decoder")
    a, b = torch.arange(4, 14)[None], torch.arange(20, 30)[None]
    run_a, run_b = _run(model, a), _run(model, b)
    where = torch.zeros(10, dtype=torch.bool)
    where[6] = True
    got = _run(model, b, {model.encoder: {1: Patch(run_a.hidden[1], where)}})
    assert torch.equal(got.hidden[3][:, :6], run_b.hidden[3][:, :6])
    assert not torch.allclose(got.hidden[3][:, 6:], run_b.hidden[3][:, 6:])


def test_one_patch_per_batch_row_equals_each_patch_alone():
    model = _tiny()
    a, b = torch.arange(4, 12)[None], torch.arange(20, 28)[None]
    run_a = _run(model, a)
    cells = [(0, 2), (1, 5), (2, 0), (1, 1)]
    where = torch.zeros(3, len(cells), 8, dtype=torch.bool)
    for r, (layer, t) in enumerate(cells):
        where[layer, r, t] = True
    edits = {model.encoder: {layer: Patch(run_a.hidden[layer], where[layer]) for layer in range(3)}}
    batched = _run(model, b.expand(len(cells), 8), edits)
    for r, (layer, t) in enumerate(cells):
        alone = _run(model, b, {model.encoder: {layer: Patch(run_a.hidden[layer], where[layer, r])}})
        torch.testing.assert_close(batched.x[r], alone.x[0], atol=1e-5, rtol=0)
        torch.testing.assert_close(batched.intermediates[2].weights[r], alone.intermediates[2].weights[0],
                                   atol=1e-6, rtol=0)


def test_patches_end_with_the_block_and_bad_sites_are_refused_with_a_message():
    model = _tiny()
    a, b = torch.arange(4, 12)[None], torch.arange(20, 28)[None]
    run_a, plain = _run(model, a), _run(model, b)
    with patching({model.encoder: {0: Patch(run_a.hidden[0])}}):
        pass
    assert torch.equal(_run(model, b).x, plain.x)
    with pytest.raises(ValueError, match=r"a layer index \(the residual stream\) or \(site, head\)"):
        with patching({model.encoder.layers[0].self_attn: {("v", 0): Patch(torch.zeros(1))}}):
            pass
    with pytest.raises(ValueError, match="expected a Patch"):
        with patching({model.encoder: {0: run_a.hidden[0]}}):
            pass


# ---- the analysis -------------------------------------------------------------------------------------------------
