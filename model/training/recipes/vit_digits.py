"""vit_digits: a ViT on scikit-learn's handwritten digits (8×8, 1,797 images, 0–16 ink levels).
2×2 patches -> a 4×4 grid of 16 patches + <cls>; pre-LN, d_model 64, 4 layers, 4 heads.
Held-out split: train_test_split(test_size=0.2, stratify=y, random_state=0) -> 1,437 / 360."""
import numpy as np

from model import checkpoints
from model.architectures.vit import ViT, ViTConfig
from model.data import digits

from . import _images

CONFIG = ViTConfig(image_size=8, channels=1, patch_size=2, n_classes=10, d_model=64, n_heads=4, n_layers=4,
                   d_ff=128, norm="pre")
RECIPE = dict(epochs=100, batch=64, lr=1e-3, weight_decay=0.05, split=digits.SPLIT)
CLASSES = [str(d) for d in range(10)]


def preprocess_meta(x_train: np.ndarray) -> dict:
    return {"size": 8, "grayscale": True, "ink": "light on dark", "mean": [float(x_train.mean())],
            "std": [float(x_train.std())], "classes": CLASSES, "question": "Which digit is this?"}


def train(seed: int = 0):
    import torch
    torch.manual_seed(seed)
    x_tr, y_tr, x_te, y_te = digits.split()
    pre = preprocess_meta(x_tr)
    model = ViT(CONFIG)
    _images.train_classifier(model, _images.normalise(x_tr, pre["mean"], pre["std"]), y_tr, seed=seed,
                             label="vit_digits", **{k: RECIPE[k] for k in ("epochs", "batch", "lr", "weight_decay")})
    metrics = measure(model, pre)
    _images.save("vit_digits", model, {**RECIPE, "seed": seed}, metrics, pre)
    print(metrics)


def measure(model, pre: dict) -> dict:
    """test_acc on the 360 held-out digits; cls_attention_on_ink: the share of <cls> attention on
    patches with above-median ink (every layer and head, per layer, best head, rollout), against the
    share uniform attention would give."""
    _, _, x_te, y_te = digits.split()
    x = _images.normalise(x_te, pre["mean"], pre["std"])
    acc = float((_images.predict(model, x) == y_te).mean())
    ink = x_te[:, 0].reshape(len(x_te), 4, 2, 4, 2).sum(axis=(2, 4)).reshape(len(x_te), 16)   # (B, 16)
    inky = ink > np.median(ink, axis=1, keepdims=True)
    share = _images.share_on(_images.cls_attention(model, x), inky)        # (B, L, H)
    rolled = (_images.cls_rollout(model, x) * inky).sum(-1)                # (B,)
    return {"test_acc": round(acc, 4), "test_n": len(y_te),
            **_images.share_figures("cls_attention_on_ink", share, inky, rolled)}


def evaluate() -> dict:
    model, meta = checkpoints.load("vit_digits")
    return measure(model, meta["preprocess"])
