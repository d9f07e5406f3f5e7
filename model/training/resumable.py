"""Time-budgeted training runs that survive being stopped, around the one training loop (loop.fit).

A run trains for `budget_min` minutes of CPU time of its process (env ATTENTION_LAB_BUDGET_MIN overrides it):
on a shared machine it takes longer on the clock, but does the same work whatever else runs. Its number of
steps is set at the start from the CPU time a step takes. It saves the weights every `checkpoint_min` minutes
(on the clock) to <folder>/<name>.ckpt.safetensors with <name>.ckpt.json (steps, tokens, seconds).
With ATTENTION_LAB_RESUME=1 a run starts from that checkpoint: an unfinished run continues for the rest of its
budget, a finished one starts a new run of a full budget. The optimizer state is not kept: a resumed run
starts AdamW afresh with its own warmup and cosine decay over the time it has left (a warm restart).
Without the variable a run starts from scratch.

A recipe may train in stages (recipe["stages"]: RECIPE overrides, each with its own budget, corpus sources or
learning rate), run one after another by `run_stages`; the checkpoint records the stage, so a resumed run
continues the stage it stopped in, or the next one when that stage's run had finished.
"""
import copy
import json
import os
import time
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from model.training.loop import fit


def resume_requested() -> bool:
    return os.environ.get("ATTENTION_LAB_RESUME", "") == "1"


def budget_s(recipe: dict) -> float:
    minutes = os.environ.get("ATTENTION_LAB_BUDGET_MIN")
    return 60.0 * float(minutes) if minutes else 60.0 * recipe["budget_min"]


def paths(name: str, folder: Path) -> tuple[Path, Path]:
    return Path(folder) / f"{name}.ckpt.safetensors", Path(folder) / f"{name}.ckpt.json"


def untied(model: torch.nn.Module) -> torch.nn.Module:
    """A copy whose output layer has its own weight tensor (safetensors refuses shared tensors)."""
    out = copy.deepcopy(model)
    if out.lm_head.weight is out.embed.tok.weight:
        out.lm_head.weight = torch.nn.Parameter(out.embed.tok.weight.detach().clone())
    return out


def tie(model: torch.nn.Module) -> torch.nn.Module:
    """Share the token embedding with the output layer (Press & Wolf 2017)."""
    model.lm_head.weight = model.embed.tok.weight
    return model


def save_state(name: str, model, state: dict, folder: Path) -> None:
    weights, info = paths(name, folder)
    weights.parent.mkdir(parents=True, exist_ok=True)
    tensors = {k: v.detach().cpu().contiguous() for k, v in untied(model).state_dict().items()}
    save_file(tensors, str(weights.with_suffix(".tmp")))
    weights.with_suffix(".tmp").replace(weights)
    info.write_text(json.dumps(state, indent=1) + "\n")


def load_state(name: str, model, folder: Path) -> dict | None:
    """The saved run state, with the weights loaded into model; None when there is no checkpoint."""
    weights, info = paths(name, folder)
    if not (weights.is_file() and info.is_file()):
        return None
    model.load_state_dict(load_file(str(weights)), strict=True)
    return json.loads(info.read_text())


def checkpoint_from_assets(name: str, folder: Path, assets: Path | None = None) -> dict:
    """Write <folder>/<name>.ckpt.* from the shipped assets/<name>.* (the weights as stored, the run state its
    recipe records), so that ATTENTION_LAB_RESUME=1 continues the shipped run on a machine that lacks its
    checkpoint: the rest of an unfinished stage, or a new run when it had finished. Returns the run state."""
    from model import checkpoints
    model, meta = checkpoints.load(name, assets)
    r = dict(meta["recipe"])
    state = {"steps": r.pop("steps_done"), "tokens": r.pop("tokens_seen"),
             "train_seconds": r.pop("train_cpu_seconds"), "wall_seconds": r.pop("train_wall_seconds"),
             "runs": r.pop("runs")}
    last_loss = r.pop("final_loss", None)
    budget = r.pop("run_budget_s", None) or 60.0 * r["budget_min"]
    run_cpu = r.pop("run_cpu_seconds", None)
    if run_cpu is None:                   # assets that record only the total: one run's, or several finished ones
        run_cpu = state["train_seconds"] if state["runs"] == 1 else budget
    state.update(run_budget_s=budget, run_elapsed_s=min(budget, run_cpu))
    if last_loss is not None:
        state["last_loss"] = last_loss
    state["recipe"] = {**r, "stage": r.get("stage", 0)}
    save_state(name, model.float(), state, folder)
    return state


def steps_per_cpu_second(model, batch, loss_fn, probes: int = 3) -> float:
    """Training steps per second of this process' CPU time, measured on a copy (the first step only warms up)."""
    probe = copy.deepcopy(model).train()
    opt = torch.optim.AdamW(probe.parameters(), lr=1e-5)
    times = []
    for _ in range(probes + 1):
        t0 = time.process_time()
        loss, _ = loss_fn(probe, batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        times.append(time.process_time() - t0)
    return 1.0 / float(np.median(times[1:]))


def finished(state: dict) -> bool:
    return state["run_elapsed_s"] >= state["run_budget_s"]


def run_stages(name: str, model, make_batches, loss_fn, recipe: dict, folder: Path) -> dict:
    """Train recipe["stages"] in order, one budgeted `run` each, from the stage a resumed checkpoint was in.
    make_batches(state, stage_recipe) -> next_batch(step). Returns the last run's state."""
    stages = recipe.get("stages") or [{}]
    _, info = paths(name, folder)
    saved = json.loads(info.read_text()) if resume_requested() and info.is_file() else None
    first = 0 if saved is None else min(saved.get("recipe", {}).get("stage", 0), len(stages) - 1)
    if saved is not None and finished(saved) and first < len(stages) - 1:
        first += 1
    for i in range(first, len(stages)):
        r = {**recipe, **stages[i], "stage": i}
        state, _ = run(name, model, lambda st, r=r: make_batches(st, r), loss_fn, r, folder,
                       resume=saved is not None or i > first)
    return state


def run(name: str, model, make_batches, loss_fn, recipe: dict, folder: Path,
        resume: bool | None = None) -> tuple[dict, list[float]]:
    """Train model for one budgeted run. make_batches(state) -> next_batch(step) (seeded from state["steps"],
    so a resumed run sees new windows); resume: start from the checkpoint (default: ATTENTION_LAB_RESUME=1).
    Returns (state, loss history of this run)."""
    resume = resume_requested() if resume is None else resume
    state = load_state(name, model, folder) if resume else None
    budget = budget_s(recipe)
    if state is None:
        state = {"steps": 0, "tokens": 0, "train_seconds": 0.0, "runs": 0}
    if state["runs"] == 0 or finished(state) or state.get("recipe", {}).get("stage") != recipe.get("stage"):
        state.update(runs=state["runs"] + 1, run_budget_s=budget, run_elapsed_s=0.0)
    state["recipe"] = recipe
    left = state["run_budget_s"] - state["run_elapsed_s"]
    next_batch = make_batches(state)
    speed = steps_per_cpu_second(model, next_batch(-1), loss_fn)
    steps = int(left * speed)                 # 0 when the budget is spent: nothing to train
    print(f"{name}: run {state['runs']}, {left / 60:.1f} CPU min left, {speed:.2f} steps per CPU second "
          f"-> {steps} steps", flush=True)
    base, t0, wall0, saved = dict(state), time.process_time(), time.perf_counter(), [time.perf_counter()]

    def progress(step: int) -> None:
        cpu = time.process_time() - t0
        state.update(steps=base["steps"] + step, train_seconds=round(base["train_seconds"] + cpu, 1),
                     run_elapsed_s=round(base["run_elapsed_s"] + cpu, 1),
                     wall_seconds=round(base.get("wall_seconds", 0.0) + time.perf_counter() - wall0, 1))

    def batch(step):
        if time.perf_counter() - saved[0] > 60 * recipe["checkpoint_min"]:
            progress(step)
            save_state(name, model, state, folder)
            saved[0] = time.perf_counter()
        return next_batch(step)

    def counted(m, b):
        loss, n = loss_fn(m, b)
        state["tokens"] += int(n)
        return loss, n

    history = fit(model, batch, counted, steps, lr=recipe["lr"], weight_decay=recipe["weight_decay"],
                  betas=tuple(recipe["betas"]), label=name) if steps else []
    progress(len(history))
    state["run_elapsed_s"] = state["run_budget_s"]          # this run is done
    if history:
        state["last_loss"] = round(float(np.mean(history[-50:])), 4)
    save_state(name, model, state, folder)
    return state, history


def save_run(name: str, model: torch.nn.Module, state: dict, text_input: str, measure, tokenizer=None) -> dict:
    """Write assets/<name>.* from a run: the weights as stored (float16, untied), the recipe with the run's
    state, the tokenizer (default: the shipped BPE, assets/bpe_8k.json) and the metrics measure(model, meta) ->
    dict takes on those stored weights. Returns the metrics."""
    from model import checkpoints
    from model.data import bpe
    r = state["recipe"]
    meta = {"arch": "model.engine.transformer:Transformer", "config": model.config.to_dict(),
            "tokenizer": (tokenizer or bpe.load()).to_dict(), "text_input": text_input, "modality": "text",
            "recipe": {**r, "steps_done": state["steps"], "tokens_seen": state["tokens"],
                       "train_cpu_seconds": state["train_seconds"], "train_wall_seconds": state.get("wall_seconds"),
                       "runs": state["runs"], "run_cpu_seconds": state.get("run_elapsed_s"),
                       "run_budget_s": state.get("run_budget_s"),
                       "final_loss": state.get("last_loss")}}
    shipped = untied(model).half().float().eval()                 # the weights as stored: float16
    meta["metrics"] = measure(shipped, meta)
    checkpoints.save(name, shipped.half(), meta)
    print(meta["metrics"], flush=True)
    return meta["metrics"]


def latest(name: str, build, folder: Path | None = None) -> tuple[torch.nn.Module, dict]:
    """(model, state) from the latest checkpoint of `name` in folder (default: the corpus cache);
    build(recipe) -> the untrained model of that recipe."""
    from model.data import real_text
    folder = Path(folder or real_text.cache_dir())
    info = json.loads(paths(name, folder)[1].read_text())
    model = build(info["recipe"])
    return model, load_state(name, model, folder)
