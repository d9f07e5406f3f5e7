"""swin_scenes: Swin as published answering "which shape is red?" on the vit_scenes data (10,000 training
scenes, 1,000 held out). 4×4 patches: stage 1 is the ViT's 6×6 grid (C = 32) in 3×3 windows, shifted by one
patch every other block; merging 2×2 -> 3×3 tokens (C = 64), one window. No <cls>: the classifier reads the
average of the last 9 tokens. evaluate() reports the global ViT's figures next to its own."""
import torch

from model import checkpoints
from model.architectures.swin import Swin, SwinConfig
from model.data import scenes

from . import _hierarchy, _images, vit_scenes

NAME = "swin_scenes"
ARCH = "model.architectures.swin:Swin"
CONFIG = SwinConfig(image_size=scenes.SIZE, channels=3, patch_size=4, n_classes=len(scenes.SHAPES), d_model=32,
                    depths=(2, 2), heads=(2, 4), window=3, mlp_ratio=2)
RECIPE = {**vit_scenes.RECIPE, "epochs": 15}


def train_model(name: str, model, arch: str, seed: int, recipe: dict):
    """Train a hierarchical model on the scenes with a resumable checkpoint, then measure and save it."""
    torch.manual_seed(seed)
    x_tr, y_tr, _ = scenes.make_dataset(recipe["train_scenes"], recipe["train_seed"])
    pre = vit_scenes.preprocess_meta(x_tr)
    _images.train_checkpointed(name, model, _images.normalise(x_tr, pre["mean"], pre["std"]), y_tr, seed=seed,
                               augment=vit_scenes.hflip,
                               **{k: recipe[k] for k in ("epochs", "batch", "lr", "weight_decay")})
    metrics = measure(model, pre)
    _images.save(name, model, {**recipe, "seed": seed}, metrics, pre, arch=arch)
    print(metrics)


def train(seed: int = 0):
    torch.manual_seed(seed)
    train_model(NAME, Swin(CONFIG), ARCH, seed, RECIPE)


def measure(model, pre: dict) -> dict:
    """test_acc on the held-out scenes and on crowded ones (5–7 shapes), with model/training/recipes/_hierarchy's
    figures; the pooled rollout's share is on the patches that hold the red shape."""
    x_te, y_te, target = scenes.make_dataset(RECIPE["test_scenes"], RECIPE["test_seed"])
    x = _images.normalise(x_te, pre["mean"], pre["std"])
    acc = float((_images.predict(model, x) == y_te).mean())
    x_crowd, y_crowd, _ = scenes.make_dataset(500, vit_scenes.CROWDED_SEED, objects=(5, 7))
    crowd = float((_images.predict(model, _images.normalise(x_crowd, pre["mean"], pre["std"])) == y_crowd).mean())
    relevant = scenes.patch_mask(target, model.config.patch_size)                  # (B, N)
    return {"test_acc": round(acc, 4), "test_n": len(y_te), "test_acc_crowded": round(crowd, 4),
            **_hierarchy.figures(model, x, relevant, "objects")}


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    out = measure(model, meta["preprocess"])
    try:
        ref = vit_scenes.evaluate()
    except checkpoints.CheckpointError:
        return out
    out.update(vit_test_acc=ref["test_acc"], test_acc_minus_vit=round(out["test_acc"] - ref["test_acc"], 4),
               vit_cls_rollout_on_objects=ref["cls_attention_on_objects_rollout"])
    return out
