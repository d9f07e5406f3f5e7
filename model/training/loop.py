"""The one training loop: AdamW, linear warmup then cosine decay, gradient clipping, a fixed seed, an
optional CPU-time budget, and a one-line progress bar. Recipes supply the batches and the loss."""
import math
import random
import sys
import time

import numpy as np
import torch


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


def update(opt, loss, lr: float, clip: float | None = 1.0) -> float:
    """One optimizer step on `loss` at learning rate lr, its gradient clipped to total norm `clip` over the
    optimizer's parameters (None or 0: not clipped). Returns the loss as a float."""
    for g in opt.param_groups:
        g["lr"] = lr
    opt.zero_grad(set_to_none=True)
    loss.backward()
    if clip:
        torch.nn.utils.clip_grad_norm_([p for g in opt.param_groups for p in g["params"]], clip)
    opt.step()
    return loss.item()


def schedule_step(step: int, steps: int, elapsed_s: float, time_budget_s: float | None) -> int:
    """Where the schedule stands: the step itself, or the share of the time budget spent (in steps) when
    that is further along. The learning rate so reaches zero when either the steps or the time run out,
    on a fast machine or a slow one; `steps` or more means the budget is spent."""
    if not time_budget_s:
        return step
    return max(step, int(steps * elapsed_s / time_budget_s))


class Progress:
    """A one-line progress bar on stderr: step, loss, tokens/s, learning rate, ETA."""

    def __init__(self, total_steps: int, label: str = "train", stream=None, every: int = 10):
        self.total, self.label, self.every = total_steps, label, every
        self.stream = stream or sys.stderr
        self.start, self.tokens = time.perf_counter(), 0

    def update(self, step: int, loss: float, tokens: int, lr: float):
        """Call after each step (1-based); prints every `every` steps and on the last."""
        self.tokens += tokens
        if step % self.every and step != self.total:
            return
        elapsed = time.perf_counter() - self.start
        eta = elapsed / step * (self.total - step)
        done = int(24 * step / self.total)
        self.stream.write(f"\r{self.label} [{'#' * done}{'-' * (24 - done)}] step {step}/{self.total} "
                          f"loss {loss:.4f} {self.tokens / max(elapsed, 1e-9):,.0f} tok/s lr {lr:.2e} "
                          f"ETA {eta:5.0f}s   ")
        self.stream.flush()

    def close(self):
        self.stream.write("\n")
        self.stream.flush()


def fit(model: torch.nn.Module, next_batch, loss_fn, steps: int, lr: float = 1e-3,
        weight_decay: float = 0.01, betas=(0.9, 0.98), clip: float = 1.0, label: str = "train",
        time_budget_s: float | None = None) -> list[float]:
    """Train `model` for at most `steps` steps and, when given, at most `time_budget_s` seconds of this
    process's CPU time (other programs sharing the cores do not shorten training); the learning-rate
    schedule follows whichever runs out first (`schedule_step`).

    next_batch(step) -> batch; loss_fn(model, batch) -> (loss tensor, tokens in the batch).
    Returns the loss of every step taken."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=betas, weight_decay=weight_decay)
    bar, history, t0 = Progress(steps, label), [], time.process_time()
    model.train()
    for step in range(steps):
        at = schedule_step(step, steps, time.process_time() - t0, time_budget_s)
        if at >= steps:
            break
        loss, n_tokens = loss_fn(model, next_batch(step))
        history.append(update(opt, loss, lr_at(at, steps, lr), clip))
        bar.update(step + 1, history[-1], n_tokens, opt.param_groups[0]["lr"])
    bar.close()
    model.eval()
    return history
