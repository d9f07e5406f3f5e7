"""The training loop of loop.fit (AdamW, warmup then cosine decay, clipping) with a checkpoint that a stopped
run resumes from exactly: the weights, AdamW's moments and the step, saved every `every_s` seconds to
<cache>/<name>.train.safetensors with <name>.train.json. `ATTENTION_LAB_RESUME=1 python -m model.train NAME`
continues from it (the schedule picks up at the saved step; batches are drawn afresh from step's seed);
without the variable a run starts from scratch. Used by the image recipes that take minutes on one thread."""
import json
import time
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from model.training.loop import Progress, lr_at, update
from model.training.resumable import resume_requested


def folder() -> Path:
    from model.data.real_text import cache_dir
    return cache_dir()


def _paths(name: str, where: Path) -> tuple[Path, Path]:
    return where / f"{name}.train.safetensors", where / f"{name}.train.json"


def save(name: str, model, opt, state: dict, where: Path) -> None:
    """Weights as "model.<key>", AdamW's moments as "opt.<index>.<exp_avg|exp_avg_sq|step>"."""
    weights, info = _paths(name, where)
    where.mkdir(parents=True, exist_ok=True)
    tensors = {f"model.{k}": v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    for i, p in enumerate(opt.param_groups[0]["params"]):
        for k, v in opt.state.get(p, {}).items():
            tensors[f"opt.{i}.{k}"] = torch.as_tensor(v).detach().cpu().contiguous()
    save_file(tensors, str(weights.with_suffix(".tmp")))
    weights.with_suffix(".tmp").replace(weights)
    info.write_text(json.dumps(state, indent=1) + "\n")


def load(name: str, model, opt, where: Path) -> dict | None:
    """The saved state with weights and optimizer moments loaded, or None without a checkpoint."""
    weights, info = _paths(name, where)
    if not (weights.is_file() and info.is_file()):
        return None
    tensors = load_file(str(weights))
    model.load_state_dict({k[6:]: v for k, v in tensors.items() if k.startswith("model.")}, strict=True)
    for i, p in enumerate(opt.param_groups[0]["params"]):
        moments = {k.rsplit(".", 1)[1]: v for k, v in tensors.items() if k.startswith(f"opt.{i}.")}
        if moments:
            opt.state[p] = moments
    return json.loads(info.read_text())


def fit(name: str, model, next_batch, loss_fn, steps: int, lr: float, weight_decay: float, *,
        betas=(0.9, 0.98), clip: float = 1.0, every_s: float = 30.0, where: Path | None = None) -> list[float]:
    """Train for `steps` steps (resuming a saved run when ATTENTION_LAB_RESUME=1); next_batch(step) -> batch,
    loss_fn(model, batch) -> (loss, items). Returns the losses of the steps this call took."""
    where = Path(where or folder())
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=betas, weight_decay=weight_decay)
    state = (load(name, model, opt, where) if resume_requested() else None) or {"step": 0, "steps": steps}
    if state["steps"] != steps:
        raise ValueError(f"the checkpoint of {name} is for {state['steps']} steps, this run has {steps}")
    if state["step"]:
        print(f"{name}: resuming at step {state['step']} of {steps}", flush=True)
    bar, history, saved = Progress(steps, name), [], time.perf_counter()
    model.train()
    for step in range(state["step"], steps):
        loss, n = loss_fn(model, next_batch(step))
        history.append(update(opt, loss, lr_at(step, steps, lr), clip))
        bar.update(step + 1, history[-1], n, opt.param_groups[0]["lr"])
        if time.perf_counter() - saved > every_s or step + 1 == steps:
            state["step"] = step + 1
            save(name, model, opt, state, where)
            saved = time.perf_counter()
    bar.close()
    model.eval()
    return history
