"""swin_scenes: the vit_scenes recipe with Swin-style windowed attention (3×3-patch windows, shifted by
one patch every other layer, <cls> global), trained and tested on the same scenes; evaluate() reports
the global ViT's figures next to its own, and the share of query-key pairs the windows keep."""
from dataclasses import replace

import torch

from model import checkpoints
from model.architectures.swin import SwinViT

from . import vit_scenes

NAME = "swin_scenes"
CONFIG = replace(vit_scenes.CONFIG, window=3)


def train(seed: int = 0):
    torch.manual_seed(seed)
    vit_scenes.train_model(NAME, SwinViT(CONFIG), "model.architectures.swin:SwinViT", seed)


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    out = vit_scenes.measure(model, meta["preprocess"])
    # share of the (N+1)² query-key pairs the windows allow, averaged over layers (global ViT: 1.0)
    out["attention_pairs_vs_global"] = round(float(model.masks.float().mean()), 4)
    try:
        ref = vit_scenes.evaluate()
    except checkpoints.CheckpointError:
        return out
    out.update(vit_test_acc=ref["test_acc"], test_acc_minus_vit=round(out["test_acc"] - ref["test_acc"], 4),
               vit_cls_attention_on_objects=ref["cls_attention_on_objects"])
    return out
