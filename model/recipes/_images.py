"""Shared pieces of the image recipes: a classifier training loop over in-memory arrays, accuracy,
and the share of <cls> attention that falls on given patches."""
import numpy as np
import torch
import torch.nn.functional as F

from .. import checkpoints
from ..trainer import fit, seed_everything


def normalise(images: np.ndarray, mean, std) -> np.ndarray:
    """(B, C, H, W) in [0, 1] -> per-channel (x - mean) / std, float32."""
    m = np.asarray(mean, dtype=np.float32)[:, None, None]
    s = np.asarray(std, dtype=np.float32)[:, None, None]
    return ((images - m) / s).astype(np.float32)


def train_classifier(model, x: np.ndarray, y: np.ndarray, *, epochs: int, batch: int, lr: float,
                     weight_decay: float, seed: int, label: str, augment=None) -> list[float]:
    """x: (B, C, H, W) normalised float32; y: (B,) int64. Shuffled mini-batches, `epochs` passes."""
    seed_everything(seed)
    rng = np.random.default_rng(seed)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    per_epoch = int(np.ceil(len(x) / batch))
    order = []

    def next_batch(step):
        if not order:
            order.extend(np.array_split(rng.permutation(len(x)), per_epoch))
        idx = torch.from_numpy(order.pop())
        xb = xt[idx]
        return (augment(xb, rng) if augment else xb), yt[idx]

    def loss_fn(m, b):
        return F.cross_entropy(m(b[0]), b[1]), len(b[1])

    return fit(model, next_batch, loss_fn, steps=epochs * per_epoch, lr=lr, weight_decay=weight_decay,
               label=label)


@torch.inference_mode()
def predict(model, x: np.ndarray, batch: int = 512) -> np.ndarray:
    """(B, C, H, W) -> predicted class (B,)."""
    model.eval()
    return np.concatenate([model(torch.from_numpy(x[i:i + batch])).argmax(-1).numpy()
                           for i in range(0, len(x), batch)])


@torch.inference_mode()
def cls_attention(model, x: np.ndarray, batch: int = 256) -> np.ndarray:
    """<cls> row of every layer, <cls> itself left out and the rest renormalised: (B, L, H, N)."""
    model.eval()
    out = []
    for i in range(0, len(x), batch):
        caps = model.encode(torch.from_numpy(x[i:i + batch]), capture=True).self_caps
        w = torch.stack([c.weights[:, :, 0, 1:] for c in caps], dim=1)           # (b, L, H, N)
        out.append((w / w.sum(-1, keepdim=True).clamp_min(1e-12)).numpy())
    return np.concatenate(out)


def share_on(cls_rows: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """cls_rows (B, L, H, N), relevant (B, N) bool -> (B, L, H) attention share on relevant patches."""
    return (cls_rows * relevant[:, None, None, :]).sum(-1)


def save(name: str, model, recipe: dict, metrics: dict, preprocess: dict, arch: str = "model.vit:ViT"):
    meta = {"arch": arch, "config": model.to_dict(), "tokenizer": None, "modality": "image",
            "preprocess": preprocess, "recipe": recipe, "metrics": metrics}
    return checkpoints.save(name, model, meta)
