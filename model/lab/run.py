"""One training run of a lesson: AdamW with warmup and cosine decay (model.training.loop.lr_at), a snapshot of every
head on the lesson's probes every k steps (scores, task accuracy, row 0's attention), and after each snapshot a
checkpoint (model and optimizer, safetensors; never a pickle) to resume from. Progress and snapshots go out as one
JSON object per line (what the server's job queue reads from a child); the trained model is saved so
checkpoints.load reads it.

Files in the run folder:
    state.json                 lesson, settings, the step reached and every snapshot so far (scores, losses)
    checkpoint.safetensors     model.* and opt.* tensors at that step
    snap_<step>.npy            row 0's attention at that snapshot, (L, H, T, T) float16
    <name>.safetensors/.json   the trained model, as model.checkpoints writes shipped ones"""
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

from model import checkpoints
from model.lab import lessons, scores, tasks
from model.lab.lessons import Lesson, Settings
from model.training.loop import lr_at, update

PROGRESS_S = 0.5                 # a progress line at most this often
STATE, CHECKPOINT = "state.json", "checkpoint.safetensors"


def model_name(lesson: Lesson) -> str:
    return f"lab_{lesson.name}"


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _save_checkpoint(folder: Path, model, opt, state: dict) -> None:
    tensors = {f"model.{k}": v.detach().contiguous() for k, v in model.state_dict().items()}
    params = [p for g in opt.param_groups for p in g["params"]]
    for i, p in enumerate(params):
        for k, v in opt.state.get(p, {}).items():
            tensors[f"opt.{i}.{k}"] = torch.as_tensor(v).detach().clone().contiguous()
    tmp = folder / (CHECKPOINT + ".tmp")
    save_file(tensors, str(tmp))
    os.replace(tmp, folder / CHECKPOINT)
    _write_atomic(folder / STATE, json.dumps(state).encode())


def _load_checkpoint(folder: Path, model, opt) -> dict:
    tensors = load_file(str(folder / CHECKPOINT))
    model.load_state_dict({k[6:]: v for k, v in tensors.items() if k.startswith("model.")})
    params = [p for g in opt.param_groups for p in g["params"]]
    for key, v in tensors.items():
        if key.startswith("opt."):
            _, i, name = key.split(".", 2)
            opt.state[params[int(i)]][name] = v
    return json.loads((folder / STATE).read_text())


def saved_state(folder: Path) -> dict | None:
    """The run folder's state (lesson, settings, step, snapshots) or None when it has no checkpoint."""
    try:
        return json.loads((Path(folder) / STATE).read_text())
    except (OSError, ValueError):
        return None


def snapshot_weights(folder: Path, step: int) -> np.ndarray:
    """Row 0's attention at a snapshot: (L, H, T, T) float32."""
    return np.load(Path(folder) / f"snap_{step:06d}.npy").astype(np.float32)


def summary(lesson: Lesson, history: list[dict], seconds: float, cpu_seconds: float) -> dict:
    """The run's figures: each score's best head at the end and its crossing step, the task accuracy, the loss."""
    last = history[-1]
    out = {"lesson": lesson.name, "steps": last["step"], "seconds": round(seconds, 1),
           "cpu_seconds": round(cpu_seconds, 1), "loss_final": last["loss"]}
    for kind in lesson.kinds:
        value, (layer, head) = scores.best(np.asarray(last["scores"][kind]))
        out[f"{kind}_score_final"] = round(value, 4)
        out[f"{kind}_head"] = [layer, head]
    for kind, step in scores.crossings(history, lesson.thresholds).items():
        out[f"{kind}_step"] = step
    out[lesson.metric_key] = last["task"]
    return out


def train(lesson: Lesson, settings: Settings, folder: Path, *, resume: bool = False,
          emit: Callable[[dict], None] = lambda row: None) -> dict:
    """Train (or continue from the folder's checkpoint) and return the summary. Every snapshot and progress line
    is passed to `emit` as a dict; the snapshot after a checkpoint is written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tok = lessons.tokenizer(lesson)
    model = lessons.build(lesson, settings, len(tok))
    opt = torch.optim.AdamW(model.parameters(), lr=settings.lr, betas=(0.9, 0.98), weight_decay=0.01)
    probes = lessons.probes(lesson, tok)
    every = lessons.snapshot_every(settings.steps)
    state = {"lesson": lesson.name, "settings": settings.to_dict(), "step": 0, "snapshots": [], "seconds": 0.0,
             "cpu_seconds": 0.0, "every": every}
    if resume and (folder / CHECKPOINT).is_file():
        state = _load_checkpoint(folder, model, opt)
    wall0, cpu0 = time.perf_counter() - state["seconds"], time.process_time() - state["cpu_seconds"]
    losses: list[float] = []
    tokens_per_step = lesson.batch * lessons.length(lesson)

    def snap(step: int):
        table, task, weights = scores.snapshot(model, probes, lesson.kinds)
        np.save(folder / f"snap_{step:06d}.npy", weights.astype(np.float16))
        record = {"step": step, "loss": round(float(np.mean(losses)), 4) if losses else None,
                  "losses": [round(x, 4) for x in losses], "task": round(task, 4),
                  "scores": {k: np.round(v, 4).tolist() for k, v in table.items()}}
        losses.clear()
        state.update(step=step, seconds=time.perf_counter() - wall0, cpu_seconds=time.process_time() - cpu0)
        state["snapshots"].append(record)
        _save_checkpoint(folder, model, opt, state)
        emit({"event": "snapshot", **record, "seconds": round(state["seconds"], 2)})

    if not state["snapshots"]:
        snap(0)
    model.train()
    shown, start, first = time.perf_counter(), time.perf_counter(), state["step"]
    for step in range(state["step"], settings.steps):
        inputs, targets = lessons.batch(lesson, settings, step, tok)
        pad = (inputs != 0)[:, None, None, :] if lesson.task == "pronoun" else None    # [PAD] is never a key
        logits = model(inputs, mask=pad)                                          # (B, T, V)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1),
                               ignore_index=tasks.IGNORE)
        losses.append(update(opt, loss, lr_at(step, settings.steps, settings.lr)))
        done = step + 1
        if done % every == 0 or done == settings.steps:
            snap(done)
        now = time.perf_counter()
        if now - shown >= PROGRESS_S or done == settings.steps:
            rate = (done - first) / max(now - start, 1e-9)
            emit({"event": "progress", "step": done, "steps": settings.steps, "loss": round(losses[-1] if losses
                  else state["snapshots"][-1]["loss"], 4), "tokens_per_s": round(rate * tokens_per_step),
                  "seconds_left": round((settings.steps - done) / max(rate, 1e-9), 1)})
            shown = now
    model.eval()
    out = summary(lesson, state["snapshots"], state["seconds"], state["cpu_seconds"])
    save_model(lesson, settings, model, tok, folder, out)
    return out


def save_model(lesson: Lesson, settings: Settings, model, tok, folder: Path, figures: dict) -> Path:
    """The trained model as <folder>/lab_<lesson>.safetensors + .json, readable by checkpoints.load."""
    return checkpoints.save(model_name(lesson), model, {
        "arch": "model.engine.transformer:Transformer", "retrain": f"python -m model.lab {lesson.name}",
        "config": model.config.to_dict(), "modality": "text", "tokenizer": tok.to_dict(),
        "text_input": lesson.text_rule,
        "lab": {"lesson": lesson.name, "settings": settings.to_dict(), "figures": figures}}, folder)
