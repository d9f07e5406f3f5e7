"""The shipped fine-tunings (assets/finetune/) and the pre-trained encoder they start from: fine-tuning never writes
the pre-trained weights, the shipped files hold only what fine-tuning changed (no LM head), load back exactly, and a
damaged file is refused with a message naming it and the command that rebuilds it."""
import hashlib
import shutil

import numpy as np
import pytest
import torch
from safetensors.torch import load_file, save_file

from model import checkpoints
from model.checkpoints import CheckpointError
from model.data.bpe import CLS, SEP
from model.tasks import finetuned
from model.training import finetune

NAMES = ("finetune_cls", "finetune_binary", "finetune_tag", "finetune_span", "finetune_nsp")
BASE = checkpoints.ASSETS / "general_encoder.safetensors"


def sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tiny_task() -> finetune.Task:
    items = [{"ids": [CLS, 300 + i, 400 + i, SEP], "target": i % 3} for i in range(12)]
    return finetune.Task("tiny", "cls", ("a", "b", "c"), items, items[:3], lambda m, xs: {"acc": 0.0})


def test_fine_tuning_the_shipped_encoder_leaves_its_weights_untouched(tmp_path):
    before = sha(BASE)
    base, _meta = checkpoints.load("general_encoder")
    r = dict(seed=0, steps=3, batch=4, lr=1e-2, lr_frozen=1e-2, betas=(0.9, 0.98), weight_decay=0.0, eval_every=3,
             checkpoint_min=0.0, train_embeddings=True)
    models, _curves = finetune.run(tiny_task(), base, r, tmp_path)
    assert sha(BASE) == before
    stored = load_file(str(BASE))
    for k, v in base.state_dict().items():
        assert torch.equal(v, stored[k].float()), k                           # the object in memory too
    layer = "encoder.layers.0.self_attn.w_q.weight"
    assert not torch.equal(models["full"].encoder.state_dict()[layer], stored[layer].float())
    assert torch.equal(models["frozen"].encoder.state_dict()[layer], stored[layer].float())

    meta = {"arch": "model.tasks.heads:HeadedEncoder", "config": base.config.to_dict(), "base": "general_encoder",
            "head": {"kind": "cls", "n_out": 3, "train_embeddings": True}}
    finetuned.save("finetune_tiny", models, meta, assets=tmp_path / "assets")
    for ext in (".safetensors", ".json"):
        shutil.copy(checkpoints.ASSETS / f"general_encoder{ext}", tmp_path / "assets")
    back = finetuned.load("finetune_tiny", tmp_path / "assets")
    ids = torch.tensor([[CLS, 500, 600, 700, SEP]])
    for variant in ("full", "frozen"):
        assert torch.allclose(getattr(back, variant)(ids), models[variant](ids), atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_each_shipped_fine_tuning_is_small_and_holds_what_fine_tuning_changed(name):
    path = finetuned.folder() / f"{name}.safetensors"
    assert path.is_file(), f"{path} is not shipped: run `python -m model.train {name}`"
    assert path.stat().st_size < 4_000_000
    ft = finetuned.load(name)
    assert ft.meta["base_sha256"] == sha(BASE)                              # trained on the weights shipped now
    base = ft.base.state_dict()
    for k, v in ft.frozen.encoder.state_dict().items():
        assert torch.equal(v, base[k]), k
    kept = torch.equal(ft.full.encoder.state_dict()["embed.tok.weight"], base["embed.tok.weight"])
    assert kept != ft.meta["head"].get("train_embeddings", False)          # trained exactly when the head says so
    moved = [k for k, v in ft.full.encoder.state_dict().items() if not torch.equal(v, base[k])]
    assert len(moved) > 40                                                   # every layer's weights were trained
    change = np.array(ft.meta["attention_change"])
    assert change.shape == (ft.base.config.n_layers, ft.base.config.n_heads) and (change >= 0).all()
    curves = ft.meta["curves"]
    assert curves["full"][-1][0] == curves["frozen"][-1][0] == ft.meta["recipe"]["steps"]


@pytest.mark.parametrize("damage", ["truncated", "extra_tensor", "other_head"])
def test_a_damaged_fine_tuning_names_its_file_and_the_rebuild(tmp_path, damage):
    assets = tmp_path / "assets"
    (assets / "finetune").mkdir(parents=True)
    for ext in (".safetensors", ".json"):
        shutil.copy(checkpoints.ASSETS / f"general_encoder{ext}", assets)
        shutil.copy(finetuned.folder() / f"finetune_nsp{ext}", assets / "finetune")
    weights = assets / "finetune" / "finetune_nsp.safetensors"
    if damage == "truncated":
        weights.write_bytes(weights.read_bytes()[:1000])
    elif damage == "extra_tensor":
        state = load_file(str(weights))
        state["full.encoder.lm_head.weight"] = torch.zeros(3, 3)
        save_file(state, str(weights))
    else:
        meta = assets / "finetune" / "finetune_nsp.json"
        meta.write_text(meta.read_text().replace('"n_out": 2', '"n_out": 5'))
    with pytest.raises(CheckpointError, match=r"finetune_nsp\.safetensors.*python -m model\.train finetune_nsp"):
        finetuned.load("finetune_nsp", assets)


@torch.inference_mode()
def test_the_tagging_scores_the_page_quotes_are_counts_of_right_tags():
    """The tagging tab quotes the shipped metrics: each is the share of held-out words (all of them, and the entity
    words) whose first piece's top tag is the word's tag, the sentences read in batches of one length (no
    padding)."""
    from model.data import course_tags
    from model.training.recipes import finetune_tag
    ft = finetuned.load("finetune_tag")
    _train, _val, heldout = finetune_tag.data(ft.meta["recipe"])
    for model, suffix in ((ft.full.eval(), ""), (ft.frozen.eval(), "_frozen")):
        hits = []
        for n in sorted({len(e["ids"]) for e in heldout}):
            same = [e for e in heldout if len(e["ids"]) == n]
            tops = model(torch.tensor([e["ids"] for e in same])).argmax(-1)                  # (B, n)
            hits += [(course_tags.TAGS[int(top[i])] == tag, tag != "O")
                     for e, top in zip(same, tops) for _word, i, tag in e["words"]]
        assert ft.meta["metrics"][f"tag_acc_heldout{suffix}"] == pytest.approx(np.mean([h for h, _ in hits]), abs=1e-4)
        assert ft.meta["metrics"][f"tag_acc_heldout_entities{suffix}"] == pytest.approx(
            np.mean([h for h, entity in hits if entity]), abs=1e-4)


@torch.inference_mode()
def test_the_binary_head_beats_its_baselines_and_its_accuracy_is_a_count():
    """The shipped accuracy is the share of held-out sentences, each read alone, where z > 0 (σ(z) > 0.5) exactly
    when the word was a verb; it beats both baselines evaluate() refits."""
    from model.training.recipes import finetune_binary
    ft = finetuned.load("finetune_binary")
    _train, _val, heldout = finetune_binary.data(ft.meta["recipe"])
    right = [(float(ft.full.eval()(torch.tensor([e["ids"]]))[0, 0]) > 0) == (e["target"] == 1) for e in heldout]
    assert ft.meta["metrics"]["binary_acc_heldout"] == pytest.approx(np.mean(right), abs=1e-4)
    found = finetune_binary.evaluate()
    assert found["binary_acc_heldout"] >= max(found["binary_baseline_majority"], found["binary_baseline_bow"]) + 0.05
    head = finetuned.load("finetune_binary").meta["head"]
    assert head["kind"] == "binary" and head["n_out"] == 1 and head["labels"] == ["noun", "verb"]
