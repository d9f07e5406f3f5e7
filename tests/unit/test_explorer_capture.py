"""The explorer's capture path: weights written in place into one preallocated (L, 1, H, N, N) buffer
equal the plain explicit attention (and the fast path's outputs), with and without masks."""
import numpy as np
import pytest
import torch

from model.data.word_tokenizer import WordTokenizer
from model.engine.attention import attention, attention_into
from model.engine.capture import capturing
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer, causal_mask
from model.tasks.attention_run import capture_buffer, run_text

TEXT = "the restaurant refused to serve me a ham sandwich because it only cooks vegetarian food ."


@pytest.mark.parametrize("mask", [None, "causal", "padding", "empty_rows"])
def test_attention_into_matches_explicit_attention(mask):
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 6, 4) for _ in range(3))
    m = {None: None, "causal": causal_mask(6), "padding": torch.tensor([True] * 4 + [False] * 2).view(1, 1, 1, 6),
         "empty_rows": torch.ones(6, 6, dtype=torch.bool).tril().logical_and(torch.arange(6).view(6, 1) > 1)}[mask]
    y_ref, w_ref, _ = attention(q, k, v, m)
    buf = torch.full((2, 3, 6, 6), 7.0)
    y, w = attention_into(q, k, v, m, out=buf)
    assert w.data_ptr() == buf.data_ptr()
    assert torch.allclose(w, w_ref, atol=1e-6) and torch.allclose(y, y_ref, atol=1e-6)
    assert not torch.isnan(w).any()


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_encode_writes_every_layer_into_the_buffer_and_run_text_matches_the_plain_path(kind):
    tok = WordTokenizer.build([TEXT])
    torch.manual_seed(1)
    model = Transformer(ModelConfig(vocab_size=len(tok), d_model=32, n_heads=4, n_layers=3, d_ff=64, max_len=32,
                                    kind=kind)).eval()
    ids = torch.tensor([tok.encode(TEXT, add_cls_sep=True).ids])
    with torch.inference_mode():
        buf = capture_buffer(model, ids.shape[1])
        with capturing(weights_into=buf):
            out = model.encode(ids)
        assert buf.shape == (3, 1, 4, ids.shape[1], ids.shape[1])
        assert all(c.weights.data_ptr() == buf[i].data_ptr() for i, c in enumerate(out.intermediates))
        fast = model.encode(ids).x
    assert torch.allclose(out.x, fast, atol=1e-5)
    plain = run_text(model, tok, TEXT, "cls_sep", qkv=True)              # the explicit attention() path
    assert np.allclose(buf[:, 0].numpy(), plain.weights, atol=1e-6)
    assert np.allclose(run_text(model, tok, TEXT, "cls_sep").weights, plain.weights, atol=1e-6)


def test_run_text_prepends_bos_for_a_model_whose_rule_says_so():
    tok = WordTokenizer.build([TEXT])
    model = Transformer(ModelConfig(vocab_size=len(tok), d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=32,
                                    kind="decoder")).eval()
    run = run_text(model, tok, "the restaurant", "bos")
    assert run.tokens == ("[BOS]", "the", "restaurant")
    assert np.allclose(np.triu(run.weights[0, 0], 1), 0.0)                  # causal: nothing above the diagonal


def test_captured_weights_need_no_grad_and_training_capture_still_differentiates():
    tok = WordTokenizer.build([TEXT])
    model = Transformer(ModelConfig(vocab_size=len(tok), d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=32))
    ids = torch.tensor([tok.encode(TEXT).ids])
    with capturing():                                                      # grad enabled: the plain path
        out = model.encode(ids)
    out.intermediates[0].weights[0, 0, 1, 2].backward()
    assert model.encoder.layers[0].self_attn.w_q.weight.grad is not None
