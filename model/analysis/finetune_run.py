"""One input through a shipped fine-tuning: what the fine-tuned heads answer (full and frozen), and the attention
of the pre-trained and the fine-tuned encoder on the same pieces (model/analysis/attention_change.py)."""
from dataclasses import dataclass

import numpy as np
import torch

from model.analysis import attention_change
from model.tasks.finetuned import FineTuned


@dataclass(frozen=True)
class HeadRun:
    """ids, pieces: the input (T); full, frozen: the heads' logits, (n_out,) for cls, (1,) for binary, (T, n_out) for
    tag and span; before, after: attention of the pre-trained and the fully fine-tuned encoder, (L, H, T, T); change:
    (L, H) mean total-variation distance between their rows."""
    ids: tuple[int, ...]
    pieces: tuple[str, ...]
    full: np.ndarray
    frozen: np.ndarray
    before: np.ndarray
    after: np.ndarray
    change: np.ndarray


@torch.inference_mode()
def run(ft: FineTuned, ids: list[int], pieces: list[str]) -> HeadRun:
    """Run one input (ids with [CLS] first, at most the encoder's max_len) through both fine-tuned models."""
    if not 2 <= len(ids) <= ft.base.config.max_len:
        raise ValueError(f"an input holds 2 to {ft.base.config.max_len} pieces, got {len(ids)}")
    x = torch.tensor([ids], dtype=torch.long)                         # (1, T)
    full, frozen = ft.full(x)[0].float().numpy(), ft.frozen(x)[0].float().numpy()
    before = attention_change.weights(ft.base, x)[:, 0]                # (L, H, T, T)
    after = attention_change.weights(ft.full.encoder, x)[:, 0]
    change = attention_change.row_distance(before, after).mean(-1)    # (L, H)
    return HeadRun(tuple(ids), tuple(pieces), full, frozen, before, after, change)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax over the last axis (max subtracted)."""
    z = np.exp(logits - logits.max(-1, keepdims=True))
    return z / z.sum(-1, keepdims=True)


def sigmoid(z):
    """σ(z) = 1 / (1 + e^−z), the probability a binary head gives its second label; stable for large |z|."""
    z = np.asarray(z, dtype=np.float64)
    return np.exp(-np.logaddexp(0.0, -z))
