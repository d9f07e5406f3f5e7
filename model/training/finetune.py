"""Fine-tuning a head on the shipped pre-trained encoder (general_encoder), shared by the finetune_* recipes.

Two runs per task on the same batches: full (the head and every encoder weight) and frozen (the head alone, the
encoder as pre-trained). Each is a fixed number of AdamW steps (linear warmup, cosine
decay, model/training/loop.py); batch k is drawn from a generator seeded by (seed, k), so a run stopped and resumed
sees the same batches. Every `eval_every` steps the learning curve gets a point: the mean training loss since the
last point and the score on a validation set drawn from the training side. A checkpoint (weights, AdamW moments,
step, curve) is written every `checkpoint_min` minutes under ~/.cache/attention-lab/; ATTENTION_LAB_RESUME=1
continues from it. The pre-trained model is never written: each run trains its own copy (HeadedEncoder)."""
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

from model.data.bpe import PAD
from model.tasks.heads import HeadedEncoder, n_outputs, pad_batch
from model.training.loop import Progress, lr_at, seed_everything, update
from model.training.resumable import resume_requested


@dataclass
class Task:
    """A fine-tuning task. Examples are dicts with "ids" (list[int], [CLS] first) and "target": an int (cls; 0 or
    1 for binary, 1 meaning labels[1]), a list with one tag id per token, -100 where not scored (tag), or (start,
    end) token indices (span).
    score(model, examples) -> {metric: value}, its first entry the one the learning curve follows."""
    name: str
    kind: str
    labels: tuple
    train: list
    val: list
    score: callable


def collate(kind: str, examples: list[dict]) -> tuple[torch.Tensor, torch.Tensor]:
    """-> ids (B, T) padded with [PAD]; targets: (B,) for cls, (B, T) with -100 on padding for tag, (B, 2) span."""
    ids = pad_batch([e["ids"] for e in examples])
    if kind == "tag":
        return ids, pad_batch([e["target"] for e in examples], value=-100)
    return ids, torch.tensor([e["target"] for e in examples], dtype=torch.long)


def loss_of(model: HeadedEncoder, ids: torch.Tensor, targets: torch.Tensor, frozen: bool) -> torch.Tensor:
    """Cross-entropy of the head's logits (binary: binary cross-entropy of the sigmoid of its one number,
    −[y log σ(z) + (1 − y) log(1 − σ(z))]); frozen runs the encoder without a graph (it is not trained)."""
    if frozen:
        with torch.no_grad():
            x = model.hidden(ids)
    else:
        x = model.hidden(ids)                                             # (B, T, C)
    if model.kind == "cls":
        return F.cross_entropy(model.head(x[:, 0]), targets)
    if model.kind == "binary":
        return F.binary_cross_entropy_with_logits(model.head(x[:, 0])[:, 0], targets.float())
    logits = model.head(x)                                                # (B, T, n_out)
    if model.kind == "tag":
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100)
    logits = logits.masked_fill((ids == PAD)[..., None], float("-inf"))   # no answer on padding
    return 0.5 * (F.cross_entropy(logits[..., 0], targets[:, 0]) + F.cross_entropy(logits[..., 1], targets[:, 1]))


@torch.inference_mode()
def predict(model: HeadedEncoder, examples: list[dict], batch: int = 64) -> list[np.ndarray]:
    """The head's logits for each example, unpadded: (n_out,) for cls, (1,) for binary, (T, n_out) for tag and
    span."""
    model.eval()
    order = sorted(range(len(examples)), key=lambda i: len(examples[i]["ids"]))   # little padding
    found = {}
    for k in range(0, len(order), batch):
        chunk = [examples[i] for i in order[k:k + batch]]
        logits = model(pad_batch([e["ids"] for e in chunk])).float().numpy()
        for i, e, row in zip(order[k:k + batch], chunk, logits):
            found[i] = row if model.kind in ("cls", "binary") else row[:len(e["ids"])]
    return [found[i] for i in range(len(examples))]


def _checkpoint_paths(folder: Path, name: str, variant: str) -> tuple[Path, Path]:
    return folder / f"{name}-{variant}.ckpt.safetensors", folder / f"{name}-{variant}.ckpt.json"


def _save(folder: Path, name: str, variant: str, model, opt, state: dict) -> None:
    weights, info = _checkpoint_paths(folder, name, variant)
    folder.mkdir(parents=True, exist_ok=True)
    tensors = {f"model.{n}": p.detach().contiguous() for n, p in model.named_parameters() if p.requires_grad}
    params = [p for g in opt.param_groups for p in g["params"]]
    for i, p in enumerate(params):
        for k, v in opt.state.get(p, {}).items():
            tensors[f"opt.{i}.{k}"] = v.detach().reshape(-1) if k == "step" else v.detach().contiguous()
    save_file(tensors, str(weights.with_suffix(".tmp")))
    weights.with_suffix(".tmp").replace(weights)
    info.write_text(json.dumps(state) + "\n")


def _load(folder: Path, name: str, variant: str, model, opt) -> dict | None:
    weights, info = _checkpoint_paths(folder, name, variant)
    if not (resume_requested() and weights.is_file() and info.is_file()):
        return None
    tensors = load_file(str(weights))
    named = dict(model.named_parameters())
    with torch.no_grad():
        for key, v in tensors.items():
            if key.startswith("model."):
                named[key[6:]].copy_(v)
    params = [p for g in opt.param_groups for p in g["params"]]
    for i, p in enumerate(params):
        if f"opt.{i}.exp_avg" in tensors:
            opt.state[p] = {"step": tensors[f"opt.{i}.step"].reshape(()), "exp_avg": tensors[f"opt.{i}.exp_avg"],
                            "exp_avg_sq": tensors[f"opt.{i}.exp_avg_sq"]}
    return json.loads(info.read_text())


def train(model: HeadedEncoder, task: Task, r: dict, frozen: bool, folder: Path) -> list[list[float]]:
    """Train model's head (frozen) or head and encoder (full) for r["steps"] steps of r["batch"] examples; returns
    the learning curve [[step, mean training loss since the last point, validation score], ...]."""
    variant = "frozen" if frozen else "full"
    params = model.trainable(frozen)
    keep = {id(p) for p in params}
    for p in model.parameters():
        p.requires_grad_(id(p) in keep)
    lr = r["lr_frozen"] if frozen else r["lr"]
    opt = torch.optim.AdamW(params, lr=lr, betas=tuple(r["betas"]), weight_decay=r["weight_decay"])
    state = _load(folder, task.name, variant, model, opt) or {"step": 0, "curve": [], "cpu_s": 0.0}
    steps, losses = r["steps"], []
    if not state["curve"]:
        state["curve"].append([0, None, first_value(task.score(model, task.val))])
    bar, saved, t0 = Progress(steps, f"{task.name} {variant}"), time.perf_counter(), time.process_time()
    bar.tokens, cpu0 = 0, state["cpu_s"]
    for step in range(state["step"], steps):
        model.train()
        if frozen:
            model.encoder.eval()
        rng = np.random.default_rng([r["seed"], step])
        ids, targets = collate(task.kind, [task.train[i] for i in rng.integers(0, len(task.train), r["batch"])])
        losses.append(update(opt, loss_of(model, ids, targets, frozen), lr_at(step, steps, lr)))
        bar.update(step + 1, losses[-1], int((ids != PAD).sum()), opt.param_groups[0]["lr"])
        if (step + 1) % r["eval_every"] == 0 or step + 1 == steps:
            state["curve"].append([step + 1, round(float(np.mean(losses)), 4),
                                   first_value(task.score(model, task.val))])
            losses = []
        state.update(step=step + 1, cpu_s=round(cpu0 + time.process_time() - t0, 1))
        if time.perf_counter() - saved > 60 * r["checkpoint_min"]:
            _save(folder, task.name, variant, model, opt, state)
            saved = time.perf_counter()
    bar.close()
    _save(folder, task.name, variant, model, opt, state)
    for p in model.parameters():
        p.requires_grad_(False)
    model.eval()
    r.setdefault("train_cpu_seconds", {})[variant] = state["cpu_s"]
    return state["curve"]


def first_value(scores: dict) -> float:
    return round(float(next(iter(scores.values()))), 4)


def as_stored(model: HeadedEncoder, frozen: bool) -> HeadedEncoder:
    """The model with its fine-tuned tensors rounded to float16, as the assets store them."""
    with torch.no_grad():
        named = dict(model.named_parameters())
        for n, t in model.shipped_state(frozen).items():
            named[n].copy_(t.half().float())
    return model


def run(task: Task, base, r: dict, folder: Path) -> tuple[dict, dict]:
    """Both runs of a task on the pre-trained `base` (left untouched). Returns ({"full": model, "frozen": model},
    {"full": curve, "frozen": curve})."""
    models, curves = {}, {}
    for variant in ("full", "frozen"):
        seed_everything(r["seed"])
        model = HeadedEncoder(base, task.kind, n_outputs(task.kind, task.labels), r["train_embeddings"])
        curves[variant] = train(model, task, r, variant == "frozen", Path(folder))
        models[variant] = as_stored(model, variant == "frozen")
    return models, curves
