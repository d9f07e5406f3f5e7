"""Shapes of the stacks, the result object, checkpoints and device fallback."""
import json

import numpy as np
import pytest
import torch

from model import checkpoints
from model.checkpoints import CheckpointError
from model.data.word_tokenizer import WordTokenizer
from model.engine import device
from model.engine.capture import capturing
from model.engine.config import ModelConfig, preset
from model.engine.transformer import Transformer
from model.tasks.attention_run import run_text


def test_config_refuses_heads_that_do_not_split_d_model():
    with pytest.raises(ValueError, match="split evenly"):
        ModelConfig(vocab_size=10, d_model=30, n_heads=4)


def test_config_refuses_unknown_option():
    with pytest.raises(ValueError, match="pos_encoding"):
        ModelConfig(vocab_size=10, pos_encoding="spiral")


def test_default_preset_is_the_compact_model():
    c = preset("compact", vocab_size=100)
    assert (c.n_layers, c.n_heads, c.d_model, c.d_ff) == (4, 4, 128, 512)


@pytest.mark.parametrize("kind,rule", [("encoder", "cls_sep"), ("decoder", "bos")])
def test_run_text_shapes(kind, rule):
    tok = WordTokenizer.build(["the restaurant refused to serve me"])
    c = ModelConfig(vocab_size=len(tok), d_model=32, n_heads=4, n_layers=3, d_ff=64, kind=kind)
    run = run_text(Transformer(c).eval(), tok, "The restaurant refused to serve me a sandwich", rule, qkv=True)
    N = 10 if rule == "cls_sep" else 9            # [CLS] + 8 pieces + [SEP], or [BOS] + 8 pieces
    assert run.tokens[0] == ("[CLS]" if rule == "cls_sep" else "[BOS]") and len(run.tokens) == N
    assert run.weights.shape == (3, 4, N, N) and run.weights.dtype == np.float32
    assert run.q.shape == (3, 4, N, 8) and run.scores.shape == (3, 4, N, N)
    assert run.hidden.shape == (4, N, 32) and run.logits.shape == (N, len(tok))
    assert run.unknown == (False,) * 7 + (True, True) + (False,) * (N - 9)
    with pytest.raises(ValueError, match="read-only"):
        run.weights[0, 0, 0, 0] = 1.0
    np.testing.assert_allclose(run.weights.sum(-1), 1.0, atol=1e-5)
    if kind == "decoder":
        assert np.all(np.triu(run.weights, k=1) == 0)


def test_run_text_truncates_with_a_notice():
    tok = WordTokenizer.build(["a b"])
    c = ModelConfig(vocab_size=len(tok), d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=8)
    run = run_text(Transformer(c).eval(), tok, "a b " * 20, "cls_sep")
    assert len(run.tokens) == 8 and "at most 8" in str(run.notices[0])


def test_encoder_decoder_cross_attention_shapes():
    c = ModelConfig(vocab_size=20, tgt_vocab_size=15, kind="encoder_decoder", d_model=32, n_heads=4,
                    n_layers=2, n_dec_layers=1, d_ff=64)
    m = Transformer(c).eval()
    src, tgt = torch.randint(0, 20, (2, 9)), torch.randint(0, 15, (2, 5))
    assert m(src, tgt).shape == (2, 5, 15)
    mem = m.encode(src).x
    with capturing():
        out = m.decode(tgt, mem)
    assert len(out.cross_intermediates) == 1 and out.cross_intermediates[0].weights.shape == (2, 4, 5, 9)


def _tiny_checkpoint(tmp_path):
    tok = WordTokenizer.build(["a b c"])
    c = ModelConfig(vocab_size=len(tok), d_model=16, n_heads=2, n_layers=1, d_ff=32)
    torch.manual_seed(3)
    m = Transformer(c).eval()
    checkpoints.save("tiny", m, {"arch": "model.engine.transformer:Transformer", "config": c.to_dict(),
                                 "tokenizer": tok.to_dict()}, assets=tmp_path)
    return m


def test_checkpoint_round_trip(tmp_path):
    m = _tiny_checkpoint(tmp_path)
    loaded, meta = checkpoints.load("tiny", assets=tmp_path)
    ids = torch.tensor([[1, 2, 3, 4]])
    assert torch.equal(m(ids), loaded(ids))
    assert meta["retrain"] == "python -m model.train tiny"
    assert checkpoints.shipped(tmp_path) == ["tiny"]


def test_missing_checkpoint_names_file_and_command(tmp_path):
    _tiny_checkpoint(tmp_path)
    (tmp_path / "tiny.safetensors").unlink()
    with pytest.raises(CheckpointError, match=r"tiny\.safetensors: file is missing.*python -m model\.train tiny"):
        checkpoints.load("tiny", assets=tmp_path)


def test_truncated_checkpoint_is_reported(tmp_path):
    _tiny_checkpoint(tmp_path)
    f = tmp_path / "tiny.safetensors"
    f.write_bytes(f.read_bytes()[:200])
    with pytest.raises(CheckpointError, match=r"tiny\.safetensors: is truncated or corrupt"):
        checkpoints.load("tiny", assets=tmp_path)


def test_mismatched_checkpoint_is_reported(tmp_path):
    _tiny_checkpoint(tmp_path)
    meta = json.loads((tmp_path / "tiny.json").read_text())
    meta["config"]["n_layers"] = 2
    (tmp_path / "tiny.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="does not match its config"):
        checkpoints.load("tiny", assets=tmp_path)


def test_checkpoint_refuses_foreign_architecture(tmp_path):
    _tiny_checkpoint(tmp_path)
    meta = json.loads((tmp_path / "tiny.json").read_text())
    meta["arch"] = "os:system"
    (tmp_path / "tiny.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="not part of this package"):
        checkpoints.load("tiny", assets=tmp_path)


def test_absent_device_falls_back_to_cpu_with_notice(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    dev, notice = device.resolve("cuda")
    assert dev.type == "cpu" and str(notice) == "CUDA is not available on this machine; running on CPU."
    assert device.resolve("auto") == (torch.device("cpu"), None) or device.resolve("auto")[0].type == "mps"
    assert device.resolve("cpu") == (torch.device("cpu"), None)
