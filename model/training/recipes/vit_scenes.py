"""vit_scenes: a ViT answering "which shape is red?" on generated 24×24 scenes (model/data/scenes.py).
4×4 patches -> a 6×6 grid of 36 patches + <cls>; pre-LN, d_model 64, 4 layers, 4 heads.
Train on 10,000 scenes (seed 1), test on 1,000 others (seed 2); horizontal flips as augmentation."""
import functools

import numpy as np
import torch

from model import checkpoints
from model.architectures.vit import ViT, ViTConfig
from model.data import scenes

from . import _images

NAME = "vit_scenes"
CROWDED_SEED = 4
CONFIG = ViTConfig(image_size=scenes.SIZE, channels=3, patch_size=4, n_classes=len(scenes.SHAPES), d_model=64,
                   n_heads=4, n_layers=4, d_ff=128, norm="pre")
RECIPE = dict(train_scenes=10_000, train_seed=1, test_scenes=1_000, test_seed=2, epochs=10, batch=128, lr=2e-3,
              weight_decay=0.05, augment="horizontal flip")


def hflip(x: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """Flip half the batch left-right: the red shape's kind does not change."""
    flip = torch.from_numpy(rng.random(len(x)) < 0.5)
    return torch.where(flip[:, None, None, None], x.flip(-1), x)


def preprocess_meta(x_train: np.ndarray) -> dict:
    return {"size": scenes.SIZE, "grayscale": False, "mean": x_train.mean(axis=(0, 2, 3)).tolist(),
            "std": x_train.std(axis=(0, 2, 3)).tolist(), "classes": list(scenes.SHAPES),
            "question": scenes.QUESTION}


def train_model(name: str, model, arch: str, seed: int):
    torch.manual_seed(seed)
    x_tr, y_tr, _ = scenes.make_dataset(RECIPE["train_scenes"], RECIPE["train_seed"])
    pre = preprocess_meta(x_tr)
    _images.train_classifier(model, _images.normalise(x_tr, pre["mean"], pre["std"]), y_tr, seed=seed,
                             label=name, augment=hflip,
                             **{k: RECIPE[k] for k in ("epochs", "batch", "lr", "weight_decay")})
    metrics = measure(model, pre)
    _images.save(name, model, {**RECIPE, "seed": seed}, metrics, pre, arch=arch)
    print(metrics)


def train(seed: int = 0):
    torch.manual_seed(seed)
    train_model(NAME, ViT(CONFIG), "model.architectures.vit:ViT", seed)


def measure(model, pre: dict, n: int | None = None) -> dict:
    """test_acc on held-out scenes; cls_attention_on_objects: the share of <cls> attention (<cls>
    itself left out) on the patches that hold the red shape, averaged over every layer and head, with
    each layer's head mean, the best single head, the rollout after the last layer, and the share
    uniform attention would give (_uniform). test_acc_crowded: 500 scenes of 5–7 shapes (training had 2–4)."""
    x_te, y_te, target = scenes.make_dataset(n or RECIPE["test_scenes"], RECIPE["test_seed"])
    x = _images.normalise(x_te, pre["mean"], pre["std"])
    acc = float((_images.predict(model, x) == y_te).mean())
    relevant = scenes.patch_mask(target, model.config.patch_size)            # (B, N)
    share = _images.share_on(_images.cls_attention(model, x), relevant)       # (B, L, H)
    rolled = (_images.cls_rollout(model, x) * relevant).sum(-1)               # (B,)
    x_crowd, y_crowd, _ = scenes.make_dataset(500, CROWDED_SEED, objects=(5, 7))
    crowd = float((_images.predict(model, _images.normalise(x_crowd, pre["mean"], pre["std"])) == y_crowd).mean())
    return {"test_acc": round(acc, 4), "test_n": len(y_te), "test_acc_crowded": round(crowd, 4),
            **_images.share_figures("cls_attention_on_objects", share, relevant, rolled)}


@functools.lru_cache(maxsize=1)
def _evaluate_once() -> tuple:
    model, meta = checkpoints.load(NAME)
    return tuple(measure(model, meta["preprocess"]).items())


def evaluate() -> dict:
    """Figures of the shipped weights (computed once per process: swin_scenes reports them too)."""
    return dict(_evaluate_once())
