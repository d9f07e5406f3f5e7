"""The explicit path, the fast (SDPA) path and the numpy reference compute the same attention."""
import numpy as np
import pytest
import torch

from model import reference as R
from model.engine.attention import MultiHeadAttention
from model.engine.capture import capturing
from model.engine.config import ModelConfig
from model.engine.layers import Block

torch.manual_seed(0)


def _np(t):
    return t.detach().double().numpy()


def _mha_params(m: MultiHeadAttention):
    """torch Linear (y = x Wᵀ + b) -> reference row form (x @ W + b)."""
    return dict(W_Q=_np(m.w_q.weight).T, W_K=_np(m.w_k.weight).T, W_V=_np(m.w_v.weight).T,
                W_O=_np(m.w_o.weight).T, b_Q=_np(m.w_q.bias), b_K=_np(m.w_k.bias), b_V=_np(m.w_v.bias),
                b_O=_np(m.w_o.bias))


MASKS = {
    "none": lambda tq, tk: None,
    "causal": lambda tq, tk: torch.ones(tq, tk, dtype=torch.bool).tril(),
    "random": lambda tq, tk: (torch.rand(tq, tk, generator=torch.Generator().manual_seed(1)) > 0.5)
    | torch.eye(tq, tk, dtype=torch.bool),
}


@pytest.mark.parametrize("mask_name", list(MASKS))
@pytest.mark.parametrize("cross", [False, True])
def test_explicit_fast_and_reference_agree(mask_name, cross):
    C, H, Tq, Tk = 32, 4, 7, 9 if cross else 7
    m = MultiHeadAttention(C, H).eval()
    for p in m.parameters():                                  # unit-scale weights, not tiny inits
        torch.nn.init.normal_(p)
    x, ctx = torch.randn(2, Tq, C), (torch.randn(2, Tk, C) if cross else None)
    mask = MASKS[mask_name](Tq, Tk)
    fast, _ = m(x, context=ctx, mask=mask)
    with capturing():
        explicit, cap = m(x, context=ctx, mask=mask)
    assert cap.weights.shape == (2, H, Tq, Tk)
    assert (fast - explicit).abs().max().item() <= 1e-5 * max(1.0, explicit.abs().max().item())
    for b in range(2):
        ref_out, ref_w, _ = R.multi_head_attention(
            _np(x[b]), n_heads=H, mask=None if mask is None else mask.numpy(),
            context=None if ctx is None else _np(ctx[b]), **_mha_params(m))
        assert np.abs(ref_w - _np(cap.weights[b])).max() <= 1e-5
        assert np.abs(ref_out - _np(explicit[b])).max() <= 1e-5 * max(1.0, np.abs(ref_out).max())


def test_masked_weights_are_exactly_zero_and_rows_sum_to_one():
    m = MultiHeadAttention(16, 2).eval()
    mask = MASKS["causal"](6, 6)
    with capturing():
        _, cap = m(torch.randn(1, 6, 16), mask=mask)
    w = cap.weights[0]
    assert torch.all(w[:, ~mask] == 0)
    assert torch.allclose(w.sum(-1), torch.ones(2, 6))


def test_capturing_qkv_exposes_scaled_scores():
    m = MultiHeadAttention(16, 2).eval()
    with capturing("weights", "q", "k", "v", "scores"):
        _, cap = m(torch.randn(1, 5, 16))
    assert cap.q.shape == (1, 2, 5, 8) and cap.scores.shape == (1, 2, 5, 5)
    expected = cap.q @ cap.k.transpose(-2, -1) / np.sqrt(8)
    assert torch.allclose(cap.scores, expected, atol=1e-6)
    assert torch.allclose(torch.softmax(cap.scores, -1), cap.weights, atol=1e-6)


@pytest.mark.parametrize("norm", ["post", "pre"])
def test_layer_matches_reference(norm):
    c = ModelConfig(vocab_size=10, d_model=32, n_heads=4, n_layers=1, d_ff=64, norm=norm)
    blk = Block(c).eval()
    for p in blk.parameters():
        torch.nn.init.normal_(p, std=0.5)
    x = torch.randn(1, 6, 32)
    mask = MASKS["causal"](6, 6)
    with capturing():
        y, inter, _ = blk(x, mask=mask)
    assert inter.weights.shape == (1, 4, 6, 6)
    a = _mha_params(blk.self_attn)
    p = dict(**a, ln1_g=_np(blk.norm1.weight), ln1_b=_np(blk.norm1.bias), ln2_g=_np(blk.norm2.weight),
             ln2_b=_np(blk.norm2.bias), W1=_np(blk.ffn.lin1.weight).T, b1=_np(blk.ffn.lin1.bias),
             W2=_np(blk.ffn.lin2.weight).T, b2=_np(blk.ffn.lin2.bias))
    ref = R.transformer_layer(_np(x[0]), p, 4, norm=norm, mask=mask.numpy())
    assert np.abs(ref - _np(y[0])).max() <= 1e-5
    y_fast, no_inter, _ = blk(x, mask=mask)
    assert no_inter is None
    assert (y_fast - y).abs().max().item() <= 1e-5


def test_capture_is_asked_once_at_the_call_site_and_ends_with_the_block():
    c = ModelConfig(vocab_size=10, d_model=16, n_heads=2, n_layers=3, d_ff=32)
    from model.engine.transformer import Transformer
    model = Transformer(c).eval()
    ids = torch.tensor([[1, 4, 7, 2]])
    with capturing():
        inside = model.encode(ids)
    outside = model.encode(ids)
    assert len(inside.intermediates) == 3 and len(inside.hidden) == 4
    assert inside.intermediates[0].q is None                            # weights only unless asked
    assert outside.intermediates == [] and outside.hidden == []
    assert torch.allclose(inside.x, outside.x, atol=1e-6)


def test_capture_request_refuses_unknown_names():
    with pytest.raises(ValueError, match="capturing keeps 'weights'"):
        with capturing("weights", "attn"):
            pass


def test_capture_in_one_thread_does_not_leak_into_another():
    import threading
    m = MultiHeadAttention(16, 2).eval()
    seen = {}

    def other():
        seen["inter"] = m(torch.randn(1, 3, 16))[1]

    with capturing():
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert m(torch.randn(1, 3, 16))[1] is not None
    assert seen["inter"] is None
