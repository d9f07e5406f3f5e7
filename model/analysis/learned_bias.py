"""What a model with a learned relative-position bias (model/engine/relative_bias.py) learned: its table, one
scalar per head and offset, and its attention and answers on the offset task of model/data/offset_digits.py."""
from dataclasses import dataclass

import numpy as np
import torch

from model.data import offset_digits as task
from model.engine.capture import capturing


def bias_table(model) -> tuple[np.ndarray, np.ndarray] | None:
    """(offsets (O,) = −K..K, table (H, O) float64) of a model with pos_encoding="relative", else None."""
    rb = getattr(model, "rel_bias", None)
    if rb is None:
        return None
    return rb.offsets(), rb.table.detach().double().cpu().numpy()


@dataclass(frozen=True)
class DigitRun:
    """One row of digits through the model. weights: (L, H, T, T); predicted, expected: (T,) int64, expected
    −1 where the task has no target (the first position and the last two)."""
    digits: np.ndarray
    weights: np.ndarray
    predicted: np.ndarray
    expected: np.ndarray

    @property
    def correct(self) -> int:
        keep = self.expected >= 0
        return int((self.predicted[keep] == self.expected[keep]).sum())

    @property
    def scored(self) -> int:
        return int((self.expected >= 0).sum())


@torch.inference_mode()
def digit_run(model, digits: np.ndarray) -> DigitRun:
    """digits: (T,) int64 in 0..9, T ≥ 4."""
    device = next(model.parameters()).device
    x = torch.as_tensor(np.asarray(digits, dtype=np.int64), device=device)[None]     # (1, T)
    with capturing():
        out = model.encode(x)
    weights = torch.stack([i.weights[0] for i in out.intermediates]).float().cpu().numpy()   # (L, H, T, T)
    predicted = model.lm_head(out.x)[0].argmax(-1).cpu().numpy()
    expected = task.targets(x.cpu())[0].numpy()
    return DigitRun(np.asarray(digits), weights, predicted, np.where(expected == task.IGNORE, -1, expected))


@torch.inference_mode()
def accuracy(model, x: torch.Tensor, y: torch.Tensor, positions: bool = True) -> float:
    """Share of the scored positions whose argmax is the target; positions=False leaves the bias out."""
    x, y = x.to(next(model.parameters()).device), y.to(next(model.parameters()).device)
    pred = model.lm_head(model.encode(x, positions=positions).x).argmax(-1)
    keep = y != task.IGNORE
    return float((pred[keep] == y[keep]).float().mean())


@torch.inference_mode()
def offset_share(model, x: torch.Tensor) -> np.ndarray:
    """(H, len(task.OFFSETS)): the mean first-layer attention weight each head puts on each offset the task reads,
    over the queries that have a target."""
    with capturing():
        w = model.encode(x.to(next(model.parameters()).device)).intermediates[0].weights.cpu()   # (B, H, T, T)
    rows = np.arange(1, x.shape[1] - 2)
    return np.stack([w[:, :, rows, rows + d].mean(dim=(0, 2)).numpy() for d in task.OFFSETS], axis=1)


def fresh_accuracy(model, rows: int = 512, length: int = 24, seed: int = 2024) -> tuple[float, float]:
    """(accuracy with the bias, accuracy with it left out) on fresh random rows."""
    x, y = task.batch(rows, length, torch.Generator().manual_seed(seed))
    return accuracy(model, x, y), accuracy(model, x, y, positions=False)
