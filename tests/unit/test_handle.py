"""One handle per loaded model (model.handle), the kind every checkpoint states (model.kinds), and the contracts
text and image models keep (model.protocols)."""
import json

import numpy as np
import pytest
import torch

from model import checkpoints, handle, kinds
from model.architectures.coref_encoder import CorefEncoder
from model.architectures.davit import DaViT, DaViTConfig
from model.architectures.sparse_encoder import SparseTransformer
from model.architectures.swin import Swin, SwinConfig
from model.architectures.vit import ViT, ViTConfig
from model.checkpoints import CheckpointError
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.protocols import ImageModule, TextModel, TextModule
from tests.conftest import save_random_text_model

# What each shipped model is, written down by hand from what it was trained for.
SHIPPED_KINDS = {
    "coref_encoder": "coref_encoder", "general_encoder": "encoder", "general_gpt": "decoder",
    "sparse_encoder": "sparse_encoder", "minilm": "encoder", "translator": "encoder_decoder",
    "incontext_copy": "decoder", "relative_digits": "encoder", "vit_digits": "vit", "vit_scenes": "vit",
    "swin_digits": "swin", "swin_scenes": "swin", "davit_digits": "davit", "imagegpt_digits": "imagegpt",
    "zh_gpt": "decoder", "zh_encoder": "encoder", "zh_coref": "coref_encoder", "translator_zh_en": "encoder_decoder",
}
TEXT = "the cat sat on the mat"
SWIN = dict(image_size=8, channels=1, patch_size=1, n_classes=3, d_model=8, depths=(2, 2), heads=(2, 2), window=4)


def test_every_shipped_model_states_its_kind_and_its_architecture_agrees():
    names = checkpoints.shipped()
    assert set(names) <= set(SHIPPED_KINDS), set(names) - set(SHIPPED_KINDS)
    for name in names:
        h = handle.load(name)
        assert h.kind == h.meta["kind"] == SHIPPED_KINDS[name], name
        assert kinds.of_model(h.model) == SHIPPED_KINDS[name], name


@pytest.mark.parametrize("kind, tokens", [("encoder", ("[CLS]", *TEXT.split(), "[SEP]")),
                                          ("decoder", ("[BOS]", *TEXT.split()))])
def test_a_text_handle_reads_text_by_its_models_rule(tmp_path, kind, tokens):
    save_random_text_model(tmp_path, "tiny", TEXT, d_model=16, n_heads=2, n_layers=2, d_ff=32, max_len=32, kind=kind)
    h = handle.load("tiny", tmp_path)
    assert (h.kind, h.text_rule) == (kind, "cls_sep" if kind == "encoder" else "bos")
    assert tuple(h.encode(TEXT).tokens) == tokens
    run = h.run(TEXT, logits=False)
    assert run.tokens == tokens and run.weights.shape == (2, 2, len(tokens), len(tokens)) and run.logits is None
    np.testing.assert_allclose(run.weights.sum(-1), 1, atol=1e-5)
    if kind == "decoder":                                              # nothing above the diagonal
        assert not np.triu(run.weights, 1).any()
    assert isinstance(h, TextModel)


def test_an_image_handle_runs_an_image_and_reads_no_text(tmp_path):
    torch.manual_seed(0)
    model = ViT(ViTConfig(n_classes=3, d_model=16, n_layers=2, d_ff=32)).eval()
    checkpoints.save("tiny_img", model, {"arch": "model.architectures.vit:ViT", "config": model.to_dict(),
                                         "modality": "image", "tokenizer": None,
                                         "preprocess": {"classes": ["a", "b", "c"]}}, tmp_path)
    h = handle.load("tiny_img", tmp_path)
    assert (h.kind, h.tokenizer, h.text_rule) == ("vit", None, None)
    run = h.run(np.zeros((1, 8, 8), dtype=np.float32))
    assert run.classes == ("a", "b", "c") and run.tokens[0] == "<cls>" and len(run.weights) == 2
    assert run.probs.sum() == pytest.approx(1, abs=1e-6)
    with pytest.raises(ValueError, match="reads no text"):
        h.encode(TEXT)


def test_save_writes_the_kind_the_model_declares(tmp_path):
    torch.manual_seed(0)
    swin = Swin(SwinConfig(**SWIN))
    checkpoints.save("tiny_swin", swin, {"arch": "model.architectures.swin:Swin", "config": swin.to_dict()}, tmp_path)
    assert json.loads((tmp_path / "tiny_swin.json").read_text())["kind"] == "swin"
    save_random_text_model(tmp_path, "tiny_gpt", TEXT, d_model=16, n_heads=2, n_layers=1, d_ff=32, kind="decoder")
    assert json.loads((tmp_path / "tiny_gpt.json").read_text())["kind"] == "decoder"


@pytest.mark.parametrize("kind", [None, "transformer"])
def test_a_config_without_a_known_kind_is_refused_naming_the_rebuild_command(tmp_path, kind):
    save_random_text_model(tmp_path, "tiny", TEXT, d_model=16, n_heads=2, n_layers=1, d_ff=32)
    path = tmp_path / "tiny.json"
    meta = json.loads(path.read_text())
    meta.pop("kind")
    path.write_text(json.dumps(meta if kind is None else {**meta, "kind": kind}))
    with pytest.raises(CheckpointError, match=r"tiny\.json: states no known 'kind' .*`python -m model\.train tiny`"):
        handle.load("tiny", tmp_path)


def test_text_and_image_networks_keep_their_contracts():
    config = ModelConfig(vocab_size=20, d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=16)
    text = [Transformer(config), SparseTransformer(config, width=2, n_global=1), CorefEncoder(config)]
    images = [ViT(ViTConfig(d_model=16, n_layers=1, d_ff=32)), Swin(SwinConfig(**SWIN)), DaViT(DaViTConfig(**SWIN))]
    assert all(isinstance(m, TextModule) for m in text) and not any(isinstance(m, TextModule) for m in images)
    assert all(isinstance(m, ImageModule) for m in images)
    ids = torch.randint(5, 20, (1, 6))
    assert text[0].pattern_mask(6) is None
    own = text[1].pattern_mask(6)                                      # a window of 2 each side, [CLS] global
    assert own.shape == (6, 6) and own[0].all() and own[:, 0].all() and not own[5, 1]
    for model in text:                                                 # one signature: positions and offset too
        assert model.encode(ids, mask=None, positions=False, kv_caches=None, offset=0).x.shape == (1, 6, 16)
    for model in images:
        out = model.encode(torch.zeros(2, 1, 8, 8))
        assert model.classify(out.x).shape == (2, model.config.n_classes)
