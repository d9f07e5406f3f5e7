"""davit_digits: DaViT on scikit-learn's digits (the vit_digits split, 1,437 / 360), sized like swin_digits:
1×1 patches, three stages of 8×8 -> 4×4 -> 2×2 tokens (C = 32 -> 64 -> 128), each one spatial block (2×2
windows, no shift) and one channel block (2 / 4 / 8 groups of 16 channels), patch merging between stages, the
average of the last tokens classified. Shifts of up to one pixel as augmentation. evaluate() adds the shape of the
channel-attention maps next to the figures of model/training/recipes/_hierarchy.py."""
import torch

from model import checkpoints
from model.architectures.davit import DaViT, DaViTConfig

from . import swin_digits

NAME = "davit_digits"
ARCH = "model.architectures.davit:DaViT"
CONFIG = DaViTConfig(image_size=8, channels=1, patch_size=1, n_classes=10, d_model=32, depths=(1, 1, 1),
                     heads=(2, 4, 8), window=2, mlp_ratio=2)
RECIPE = {**swin_digits.RECIPE}


def train(seed: int = 0):
    torch.manual_seed(seed)
    swin_digits.train_model(NAME, DaViT(CONFIG), ARCH, seed, RECIPE, measure)


def measure(model, pre: dict) -> dict:
    """swin_digits' figures, and channel_groups_per_stage with channels_per_group (each channel block's maps
    are channels_per_group × channels_per_group, one per group)."""
    c = model.config
    return {**swin_digits.measure(model, pre), "channel_groups_per_stage": list(c.heads),
            "channels_per_group": [d // h for d, h in zip(c.dims, c.heads)]}


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    return measure(model, meta["preprocess"])
