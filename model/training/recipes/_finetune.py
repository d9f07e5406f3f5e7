"""What the finetune_* recipes share: the pre-trained encoder they start from, the recipe fields common to all,
the validation sample, the scores of both variants and the majority baseline, writing the assets (both fine-tuned
variants, learning curves, per-head attention change, metrics), and train() and evaluate() themselves: a recipe
module states its pieces once, FINE_TUNING = FineTuning(NAME, kind, labels, RECIPE, data, score, metrics)."""
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
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


def split_off_val(every: list[dict], val_size: int, seed: int) -> tuple[list[dict], list[dict]]:
    """(train, val): val is a fixed sample of val_size examples (drawn by the seed), never trained on."""
    val = set(np.random.default_rng(seed).permutation(len(every))[:val_size].tolist())
    return [e for i, e in enumerate(every) if i not in val], [every[i] for i in sorted(val)]


def variant_scores(models: dict, heldout: list[dict], score, names: dict[str, str]) -> dict:
    """score(model, heldout) -> {figure: value} of the full and of the frozen model, as {names[figure]: value}
    and {names[figure] + "_frozen": value}, rounded to 4 places."""
    return {names[k] + suffix: round(v, 4) for variant, suffix in (("full", ""), ("frozen", "_frozen"))
            for k, v in score(models[variant], heldout).items() if k in names}


def majority_share(train: list[dict], heldout: list[dict]) -> float:
    """Held-out accuracy of always answering the most frequent training target (the smallest one on a tie)."""
    counts = Counter(e["target"] for e in train)
    majority = max(sorted(counts), key=counts.__getitem__)
    return round(float(np.mean([e["target"] == majority for e in heldout])), 4)


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


@dataclass(frozen=True)
class FineTuning:
    """What one finetune_* recipe brings: its name, head kind and labels, RECIPE, data(r) -> (train, val, heldout)
    examples, score(model, examples) -> {figure: value} (validation during training), and metrics(models, train,
    heldout) -> {name: value}. Its train and evaluate are the recipe module's."""
    name: str
    kind: str
    labels: tuple
    recipe: dict
    data: Callable
    score: Callable
    metrics: Callable

    def train(self, seed: int = 0, folder: Path | None = None, assets: Path | None = None, **overrides) -> dict:
        """Fine-tune (full and frozen) on the recipe with overrides and the seed, and write
        assets/finetune/<name>.*; returns the metrics."""
        r = {**self.recipe, **overrides, "seed": seed}
        train_set, val, heldout = self.data(r)
        task = finetune.Task(self.name, self.kind, self.labels, train_set, val, self.score)
        return fit_and_save(self.name, task, r, lambda m: self.metrics(m, train_set, heldout), heldout, folder,
                            assets)

    def evaluate(self) -> dict:
        """Metrics of the shipped full and frozen models on the data their recipe names (baselines refit), with
        the attention change measured at training."""
        ft = finetuned.load(self.name)
        train_set, _val, heldout = self.data(ft.meta["recipe"])
        found = self.metrics({"full": ft.full, "frozen": ft.frozen}, train_set, heldout)
        return {**found, **{k: ft.meta["metrics"][k] for k in ("attention_change_max", "attention_change_head")}}
