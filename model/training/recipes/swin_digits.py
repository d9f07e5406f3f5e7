"""swin_digits: Swin as published on scikit-learn's digits (the vit_digits split, 1,437 / 360).
1×1 patches: stage 1 reads the 8×8 pixels as 64 tokens (C = 32) in 2×2 windows, shifted by one every other
block; merging 2×2 -> 16 tokens (C = 64) in 2×2 windows; merging -> 4 tokens (C = 128), one window.
Two blocks per stage, no <cls>: the classifier reads the average of the last 4 tokens. Shifts of up to one
pixel as augmentation. About 4 CPU minutes on one thread."""
import numpy as np
import torch
import torch.nn.functional as F

from model import checkpoints
from model.architectures.swin import Swin, SwinConfig
from model.data import digits

from . import _hierarchy, _images, vit_digits

NAME = "swin_digits"
ARCH = "model.architectures.swin:Swin"
CONFIG = SwinConfig(image_size=8, channels=1, patch_size=1, n_classes=10, d_model=32, depths=(2, 2, 2),
                    heads=(2, 4, 8), window=2, mlp_ratio=2)
RECIPE = dict(epochs=100, batch=64, lr=2e-3, weight_decay=0.05, augment="shift by up to 1 pixel",
              split=vit_digits.RECIPE["split"])


def shift_pixels(xb: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """(B, C, S, S) normalised -> each image moved by −1, 0 or 1 pixel each way, background filled in."""
    S = xb.shape[-1]
    pad = F.pad(xb, (1, 1, 1, 1), value=float(xb.min()))
    offsets = rng.integers(0, 3, size=(len(xb), 2))
    return torch.stack([pad[i, :, dy:dy + S, dx:dx + S] for i, (dy, dx) in enumerate(offsets)])


def train_model(name: str, model, arch: str, seed: int, recipe: dict, measure_fn):
    """Train a hierarchical model on the digits (shifted by up to one pixel) with a resumable checkpoint, then
    measure it with measure_fn(model, preprocess) and save it."""
    x_tr, y_tr, _, _ = digits.split()
    pre = vit_digits.preprocess_meta(x_tr)
    _images.train_checkpointed(name, model, _images.normalise(x_tr, pre["mean"], pre["std"]), y_tr, seed=seed,
                               augment=shift_pixels,
                               **{k: recipe[k] for k in ("epochs", "batch", "lr", "weight_decay")})
    metrics = measure_fn(model, pre)
    _images.save(name, model, {**recipe, "seed": seed}, metrics, pre, arch=arch)
    print(metrics)


def train(seed: int = 0):
    torch.manual_seed(seed)
    train_model(NAME, Swin(CONFIG), ARCH, seed, RECIPE, measure)


def measure(model, pre: dict) -> dict:
    """test_acc on the 360 held-out digits, the token counts and widths per stage, the largest weight any
    token gives outside its window (0 by construction), the share of query-key pairs the windows keep, and
    the share of the pooled output's rollout on above-median-ink pixels against uniform (any hierarchical model
    of 1×1 patches)."""
    _, _, x_te, y_te = digits.split()
    x = _images.normalise(x_te, pre["mean"], pre["std"])
    acc = float((_images.predict(model, x) == y_te).mean())
    ink = x_te[:, 0].reshape(len(x_te), -1)                                           # (B, 64) pixels
    inky = ink > np.median(ink, axis=1, keepdims=True)
    return {"test_acc": round(acc, 4), "test_n": len(y_te), **_hierarchy.figures(model, x, inky, "ink")}


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    return measure(model, meta["preprocess"])
