"""davit_digits: DaViT on scikit-learn's digits (the vit_digits split, 1,437 / 360), sized like swin_digits:
1×1 patches, three stages of 8×8 -> 4×4 -> 2×2 tokens (C = 32 -> 64 -> 128), each one spatial block (2×2
windows, no shift) and one channel block (2 / 4 / 8 groups of 16 channels), patch merging between stages, the
average of the last tokens classified. Shifts of up to one pixel as augmentation. evaluate() adds the shape of the
channel-attention maps next to the figures of model/training/recipes/_hierarchy.py."""
import numpy as np
import torch

from model import checkpoints
from model.architectures.davit import DaViT, DaViTConfig

from . import _hierarchy, _images, swin_digits, vit_digits

NAME = "davit_digits"
ARCH = "model.architectures.davit:DaViT"
CONFIG = DaViTConfig(image_size=8, channels=1, patch_size=1, n_classes=10, d_model=32, depths=(1, 1, 1),
                     heads=(2, 4, 8), window=2, mlp_ratio=2)
RECIPE = {**swin_digits.RECIPE}


def train(seed: int = 0):
    torch.manual_seed(seed)
    x_tr, y_tr, _, _ = vit_digits.data()
    pre = vit_digits.preprocess_meta(x_tr)
    model = DaViT(CONFIG)
    _images.train_checkpointed(NAME, model, _images.normalise(x_tr, pre["mean"], pre["std"]), y_tr, seed=seed,
                               augment=swin_digits.shift_pixels,
                               **{k: RECIPE[k] for k in ("epochs", "batch", "lr", "weight_decay")})
    metrics = measure(model, pre)
    _images.save(NAME, model, {**RECIPE, "seed": seed}, metrics, pre, arch=ARCH)
    print(metrics)


def measure(model, pre: dict) -> dict:
    """swin_digits' figures, and channel_groups_per_stage with channels_per_group (each channel block's maps
    are channels_per_group × channels_per_group, one per group)."""
    _, _, x_te, y_te = vit_digits.data()
    x = _images.normalise(x_te, pre["mean"], pre["std"])
    acc = float((_images.predict(model, x) == y_te).mean())
    ink = x_te[:, 0].reshape(len(x_te), -1)
    inky = ink > np.median(ink, axis=1, keepdims=True)
    c = model.config
    return {"test_acc": round(acc, 4), "test_n": len(y_te), **_hierarchy.figures(model, x, inky, "ink"),
            "channel_groups_per_stage": list(c.heads), "channels_per_group": [d // h for d, h in zip(c.dims, c.heads)]}


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    return measure(model, meta["preprocess"])
