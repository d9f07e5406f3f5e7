"""The learned relative-position bias of the engine: the clipped offset table, and a whole model with it against
plain numpy written here (loops over queries, keys and heads), on the fast, explicit and incremental paths."""
import numpy as np
import pytest
import torch

from model import reference as R
from model.engine.capture import capturing
from model.engine.config import ModelConfig
from model.engine.relative_bias import RelativePositionBias, offset_index
from model.engine.transformer import Transformer


def _np(t):
    return t.detach().double().numpy()


def test_offsets_beyond_max_offset_share_the_last_column():
    # key j − query i, clipped to ±1, shifted by 1: three columns for offsets −1, 0, +1
    assert offset_index(3, 4, 1).tolist() == [[1, 2, 2, 2], [0, 1, 2, 2], [0, 0, 1, 2]]
    # the third query of a decoder reading from a cache sits at position 2 and sees keys 0..2
    assert offset_index(1, 3, 1, q_start=2).tolist() == [[0, 0, 1]]


def test_the_bias_reads_one_scalar_per_head_and_offset():
    rb = RelativePositionBias(n_heads=2, max_offset=2)
    with torch.no_grad():
        rb.table.copy_(torch.tensor([[-2.0, -1.0, 0.0, 1.0, 2.0], [10.0, 20.0, 30.0, 40.0, 50.0]]))
    b = rb(4, 4)
    assert b.shape == (2, 4, 4) and rb.offsets().tolist() == [-2, -1, 0, 1, 2]
    # head 0's table holds the offset itself, so its bias is clip(j − i, −2, 2)
    j, i = np.meshgrid(np.arange(4), np.arange(4))
    assert _np(b[0]).tolist() == np.clip(j - i, -2, 2).tolist()
    assert b[1, 0, 3].item() == 50.0 and b[1, 3, 0].item() == 10.0 and b[1, 2, 2].item() == 30.0


def _numpy_bias(table: np.ndarray, n_q: int, n_k: int, q_start: int = 0) -> np.ndarray:
    K = (table.shape[1] - 1) // 2
    return np.array([[[table[h, K + max(-K, min(K, j - q_start - i))] for j in range(n_k)] for i in range(n_q)]
                     for h in range(table.shape[0])])


def _layer_params(blk) -> dict:
    a = blk.self_attn
    return dict(W_Q=_np(a.w_q.weight).T, W_K=_np(a.w_k.weight).T, W_V=_np(a.w_v.weight).T, W_O=_np(a.w_o.weight).T,
                b_Q=_np(a.w_q.bias), b_K=_np(a.w_k.bias), b_V=_np(a.w_v.bias), b_O=_np(a.w_o.bias),
                ln1_g=_np(blk.norm1.weight), ln1_b=_np(blk.norm1.bias), ln2_g=_np(blk.norm2.weight),
                ln2_b=_np(blk.norm2.bias), W1=_np(blk.ffn.lin1.weight).T, b1=_np(blk.ffn.lin1.bias),
                W2=_np(blk.ffn.lin2.weight).T, b2=_np(blk.ffn.lin2.bias))


def _model(kind: str = "encoder", norm: str = "post") -> Transformer:
    torch.manual_seed(0)
    c = ModelConfig(vocab_size=11, d_model=16, n_heads=2, n_layers=2, d_ff=32, max_len=32, kind=kind, norm=norm,
                    pos_encoding="relative", max_offset=3)
    m = Transformer(c).eval()
    with torch.no_grad():
        m.rel_bias.table.copy_(torch.randn(2, 7) * 2)                   # a bias large enough to matter
    return m


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_a_relative_model_equals_numpy_with_the_bias_in_every_layer(kind):
    m = _model(kind)
    ids = torch.tensor([[3, 1, 4, 1, 5, 9, 2, 6, 5]])
    T = ids.shape[1]
    bias = _numpy_bias(_np(m.rel_bias.table), T, T)
    np.testing.assert_allclose(bias, _np(m.rel_bias(T, T)))
    mask = np.tril(np.ones((T, T), bool)) if kind == "decoder" else None
    x = _np(m.embed.tok.weight)[ids[0].numpy()]                        # no position is added to the tokens
    for blk in m.encoder.layers:
        x = R.transformer_layer(x, _layer_params(blk), 2, "post", mask, bias=bias)
    with torch.no_grad():
        fast = m.encode(ids).x
        with capturing("weights", "scores"):
            explicit = m.encode(ids)
        with capturing():
            in_place = m.encode(ids)
    for out in (fast, explicit.x, in_place.x):
        assert np.abs(_np(out[0]) - x).max() <= 1e-5
    assert torch.allclose(explicit.intermediates[0].weights, in_place.intermediates[0].weights, atol=1e-6)


def test_without_positions_the_bias_is_left_out_and_a_token_set_is_all_the_model_sees():
    m = _model()
    ids = torch.tensor([[3, 1, 4, 1, 5]])
    perm = torch.tensor([4, 2, 0, 1, 3])
    with torch.no_grad():
        a, b = m.encode(ids, positions=False).x, m.encode(ids[:, perm], positions=False).x
        with_bias = m.encode(ids[:, perm]).x
    assert torch.allclose(a[:, perm], b, atol=1e-5)                    # reordered inputs, reordered outputs
    assert not torch.allclose(a[:, perm], with_bias, atol=1e-2)


def test_a_decoder_with_a_relative_bias_decodes_the_same_one_token_at_a_time():
    m = _model("decoder", norm="pre")
    ids = torch.tensor([[7, 2, 9, 4, 4, 1]])
    with torch.no_grad():
        full = m.lm_head(m.encode(ids).x)
        caches = [{} for _ in m.encoder.layers]
        steps = [m.lm_head(m.encode(ids[:, t:t + 1], kv_caches=caches, offset=t).x) for t in range(ids.shape[1])]
    assert torch.allclose(torch.cat(steps, dim=1), full, atol=1e-5)


def test_the_config_refuses_a_relative_encoder_decoder_and_a_zero_offset():
    with pytest.raises(ValueError, match="encoder and decoder stacks"):
        ModelConfig(vocab_size=10, pos_encoding="relative", kind="encoder_decoder")
    with pytest.raises(ValueError, match="max_offset=0 must be at least 1"):
        ModelConfig(vocab_size=10, pos_encoding="relative", max_offset=0)
