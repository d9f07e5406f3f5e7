"""A shared training loop: AdamW, linear warmup then cosine decay, gradient clipping, fixed seed,
progress bar. Recipes supply the batches and the loss."""
import math
import random

import numpy as np
import torch

from model.training.progress import Progress


def seed_everything(seed: int):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def lr_at(step: int, total: int, lr: float, warmup: float = 0.06) -> float:
    """Linear warmup over `warmup` of the steps, then cosine decay to zero."""
    w = max(1, int(total * warmup))
    if step < w:
        return lr * (step + 1) / w
    return lr * 0.5 * (1 + math.cos(math.pi * (step - w) / max(1, total - w)))


def fit(model: torch.nn.Module, next_batch, loss_fn, steps: int, lr: float = 1e-3,
        weight_decay: float = 0.01, betas=(0.9, 0.98), clip: float = 1.0, label: str = "train",
        time_budget_s: float | None = None) -> list[float]:
    """Train `model` for `steps` steps. next_batch(step) -> batch; loss_fn(model, batch) ->
    (loss tensor, n_tokens). Returns the loss history. Stops early if time_budget_s runs out."""
    import time
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=betas, weight_decay=weight_decay)
    bar = Progress(steps, label)
    history = []
    t0 = time.perf_counter()
    model.train()
    for step in range(steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step, steps, lr)
        loss, n_tokens = loss_fn(model, next_batch(step))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        history.append(loss.item())
        bar.update(step + 1, history[-1], n_tokens)
        if time_budget_s and time.perf_counter() - t0 > time_budget_s:
            break
    model.eval()
    return history
