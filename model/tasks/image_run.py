"""Run an image model with attention captured: one normalised image in, the frozen ImageRun out. A ViT
(one stage, <cls> first) or a hierarchical model (Swin, DaViT: stages of fewer, wider tokens, no <cls>)."""
from typing import TYPE_CHECKING

import numpy as np
import torch

from model.architectures.swin import HierarchyOutput
from model.engine.capture import capturing
from model.engine.errors import InputError
from model.tasks.results import ImageRun

if TYPE_CHECKING:
    from model.protocols import ImageModule


def patch_tokens(n_patches: int, cls: bool = True) -> list[str]:
    return (["<cls>"] if cls else []) + [f"p{i}" for i in range(n_patches)]


def _probs(logits: np.ndarray) -> np.ndarray:
    p = np.exp(logits - logits.max())
    return p / p.sum()


@torch.inference_mode()
def run_image(model: "ImageModule", image: np.ndarray, class_names: list[str] | None = None) -> ImageRun:
    """image: (C, H, W) float, already normalised. Returns ImageRun with the tokens, weights per layer
    (H, N_l, N_l), logits and probs (n_classes,), the masks of windowed models and, for hierarchical models,
    each layer's stage, the grid of each stage, each layer's input and DaViT's channel attention."""
    c = model.config
    if image.shape != (c.channels, c.image_size, c.image_size):
        raise InputError(f"image has shape {image.shape}; this model reads {(c.channels, c.image_size, c.image_size)}")
    device = next(model.parameters()).device
    x = torch.as_tensor(np.ascontiguousarray(image), dtype=torch.float32, device=device)[None]
    classes = tuple(str(n) for n in (class_names or range(c.n_classes)))
    with capturing():
        out = model.encode(x)
    logits = model.classify(out.x)[0].float().cpu().numpy()                 # (n_classes,)
    if isinstance(out, HierarchyOutput):                       # Swin, DaViT: stages of token grids
        is_channel = [getattr(i, "channel", False) for i in out.intermediates]    # DaViT's channel blocks
        spatial = [None if ch else i.weights for i, ch in zip(out.intermediates, is_channel)]
        channel = [i.weights[0].float().cpu().numpy() if ch else None for i, ch in zip(out.intermediates, is_channel)]
        return ImageRun(tokens=tuple(patch_tokens(c.n_patches, cls=False)),
                        weights=tuple(None if w is None else w[0].float().cpu().numpy() for w in spatial),
                        logits=logits, probs=_probs(logits), classes=classes, grid=tuple(c.grid),
                        patch_size=c.patch_size, masks=tuple(model.layer_masks()),
                        stage_of_layer=model.stage_of_layer, grids=tuple((g, g) for g in c.grids),
                        inputs=tuple(h[0].float().cpu().numpy() for h in out.inputs),
                        channel_weights=tuple(channel) if any(w is not None for w in channel) else None,
                        windows=tuple((getattr(b, "window", 0), getattr(b, "shift", 0))
                                      for blocks in model.stages for b in blocks))
    return ImageRun(tokens=tuple(patch_tokens(c.n_patches)),
                    weights=tuple(i.weights[0].float().cpu().numpy() for i in out.intermediates),
                    logits=logits, probs=_probs(logits), classes=classes, grid=tuple(c.grid),
                    patch_size=c.patch_size)


@torch.inference_mode()
def classify(model: "ImageModule", images: np.ndarray, preprocess: dict) -> np.ndarray:
    """(K, n_classes) class probabilities of an image classifier on K grey images (K, S, S) in [0, 1], light ink
    on dark, normalised with the mean and std it was trained with (its meta["preprocess"])."""
    x = ((images[:, None] - preprocess["mean"][0]) / preprocess["std"][0]).astype(np.float32)     # (K, 1, S, S)
    device = next(model.parameters()).device
    return torch.softmax(model(torch.from_numpy(x).to(device)), -1).float().cpu().numpy()
