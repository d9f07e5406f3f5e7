"""What the finetune_* recipes share: the pre-trained encoder they start from, the recipe fields common to all,
and writing the assets (both fine-tuned variants, learning curves, per-head attention change, metrics)."""
from pathlib import Path

import torch

from model import checkpoints
from model.analysis import attention_change
from model.data import bpe, real_text
from model.tasks import finetuned
from model.tasks.heads import n_outputs, pad_batch
from model.training import finetune

BASE = "general_encoder"
COMMON = dict(base=BASE, batch=32, lr=3e-4, lr_frozen=3e-3, betas=(0.9, 0.98), weight_decay=0.01, eval_every=100,
              checkpoint_min=5, val_size=256, change_inputs=128, max_pieces=128, train_embeddings=False,
              trained="full: head + every encoder weight but the token embeddings; frozen: the head alone")


def base_model():
    """The shipped pre-trained encoder (read, never written) and the sha256 of its weights file."""
    model, _meta = checkpoints.load(BASE)
    return model, finetuned.file_sha256(checkpoints.ASSETS / f"{BASE}.safetensors")


def change_batches(examples: list[dict], batch: int = 32):
    """(ids (B, T), lengths (B,)) batches of the examples' inputs, for attention_change.measure."""
    for k in range(0, len(examples), batch):
        seqs = [e["ids"] for e in examples[k:k + batch]]
        yield pad_batch(seqs), torch.tensor([len(s) for s in seqs])


def head_change(base, model, examples: list[dict]) -> list[list[float]]:
    """(L, H) mean total-variation distance between the pre-trained and the fine-tuned attention rows on examples."""
    change = attention_change.measure(base, model.encoder, change_batches(examples))
    return [[round(float(v), 4) for v in row] for row in change]


def fit_and_save(name: str, task: finetune.Task, r: dict, metrics, heldout: list[dict], folder: Path | None = None,
                 assets: Path | None = None) -> dict:
    """Train both variants on the pre-trained encoder, measure them (metrics(models) -> dict) and write
    assets/finetune/<name>.*; returns the metrics."""
    base, sha = base_model()
    models, curves = finetune.run(task, base, r, Path(folder or real_text.cache_dir()))
    found = metrics(models)
    change = head_change(base, models["full"], heldout[:r["change_inputs"]])
    flat = [(v, layer, h) for layer, row in enumerate(change) for h, v in enumerate(row)]
    found["attention_change_max"] = max(flat)[0]
    found["attention_change_head"] = list(max(flat)[1:])
    meta = {"arch": "model.tasks.heads:HeadedEncoder", "config": base.config.to_dict(), "base": BASE,
            "base_sha256": sha, "tokenizer": bpe.load().to_dict(), "text_input": "cls_sep", "modality": "text",
            "head": {"kind": task.kind, "n_out": n_outputs(task.kind, task.labels), "labels": list(task.labels),
                     "train_embeddings": r["train_embeddings"]},
            "recipe": r, "metrics": found, "curves": curves, "attention_change": change}
    finetuned.save(name, models, meta, assets)
    print(found, flush=True)
    return found


def train_recipe(name: str, kind: str, labels, recipe: dict, data, score, metrics, seed: int, folder, assets,
                 overrides: dict) -> dict:
    """A fine-tuning recipe's train(): the recipe with overrides and the seed, its data (train, val, held out), the
    task of that head kind, fit (full and frozen) and saved. metrics(models, train, heldout) -> {name: value}."""
    r = {**recipe, **overrides, "seed": seed}
    train_set, val, heldout = data(r)
    task = finetune.Task(name, kind, labels, train_set, val, score)
    return fit_and_save(name, task, r, lambda m: metrics(m, train_set, heldout), heldout, folder, assets)


def shipped_metrics(name: str, data, metrics) -> dict:
    """A fine-tuning recipe's evaluate(): metrics(models, train, heldout) of the shipped full and frozen models on
    the data their recipe names (baselines refit), with the attention change measured at training."""
    ft = finetuned.load(name)
    train_set, _val, heldout = data(ft.meta["recipe"])
    found = metrics({"full": ft.full, "frozen": ft.frozen}, train_set, heldout)
    return {**found, **{k: ft.meta["metrics"][k] for k in ("attention_change_max", "attention_change_head")}}
