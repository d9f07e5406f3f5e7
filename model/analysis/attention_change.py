"""What fine-tuning changed in attention: the same input through the pre-trained and the fine-tuned encoder, each
head's attention rows compared by total-variation distance, ½ Σ_k |p_k − q_k| (0: the same row, 1: no key in
common), averaged over the real query tokens of the inputs."""
import numpy as np
import torch

from model.engine.capture import capturing


@torch.inference_mode()
def weights(encoder, ids: torch.Tensor, pad_mask: torch.Tensor | None = None) -> np.ndarray:
    """Attention weights of every layer and head, (L, B, H, T, T) float32. encoder: a Transformer (its
    encode()); ids (B, T); pad_mask: (B, 1, 1, T) bool "may attend" or None."""
    with capturing():
        out = encoder.encode(ids, mask=pad_mask)
    return torch.stack([i.weights for i in out.intermediates]).float().numpy()


def row_distance(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Total-variation distance between matching attention rows: (..., T, T) x2 -> (..., T)."""
    return 0.5 * np.abs(before - after).sum(-1)


def head_change(before: np.ndarray, after: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Mean row distance per head over the real query tokens. before, after: (L, B, H, T, T); lengths: (B,)
    real tokens of each input (the rest is padding). Returns (L, H)."""
    dist = row_distance(before, after)                                    # (L, B, H, T)
    real = np.arange(dist.shape[-1])[None, :] < np.asarray(lengths)[:, None]   # (B, T)
    mask = real[None, :, None, :]                                         # (1, B, 1, T)
    return (dist * mask).sum(axis=(1, 3)) / (mask.sum(axis=(1, 3)))


def measure(base, tuned, batches) -> np.ndarray:
    """(L, H) mean row distance between base and tuned encoders over batches of (ids (B, T), lengths (B,)),
    every real query token weighted alike."""
    total, count = None, 0
    for ids, lengths in batches:
        pad = (torch.arange(ids.shape[1])[None, :] < lengths[:, None])[:, None, None, :]   # (B, 1, 1, T)
        dist = row_distance(weights(base, ids, pad), weights(tuned, ids, pad))               # (L, B, H, T)
        real = (np.arange(ids.shape[1])[None, :] < lengths.numpy()[:, None])[None, :, None, :]
        part = (dist * real).sum(axis=(1, 3))
        total = part if total is None else total + part
        count += int(lengths.sum())
    return total / count
