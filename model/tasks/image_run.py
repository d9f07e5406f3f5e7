"""Run an image model with attention captured: one normalised image in, the frozen ImageRun out."""
import numpy as np
import torch

from model.architectures.vit import ViT
from model.engine.capture import capturing
from model.engine.errors import InputError
from model.tasks.results import ImageRun


def patch_tokens(n_patches: int) -> list[str]:
    return ["<cls>"] + [f"p{i}" for i in range(n_patches)]


@torch.inference_mode()
def run_image(model: ViT, image: np.ndarray, class_names: list[str] | None = None) -> ImageRun:
    """image: (C, H, W) float, already normalised. Returns ImageRun with tokens "<cls>", "p0", ..,
    weights per layer (H, N+1, N+1), logits and probs (n_classes,), and the masks of windowed models."""
    c = model.config
    if image.shape != (c.channels, c.image_size, c.image_size):
        raise InputError(f"image has shape {image.shape}; this model reads {(c.channels, c.image_size, c.image_size)}")
    device = next(model.parameters()).device
    x = torch.as_tensor(np.ascontiguousarray(image), dtype=torch.float32, device=device)[None]
    with capturing():
        out = model.encode(x)
    logits = model.head(out.x[:, 0])[0].float().cpu().numpy()              # (n_classes,)
    probs = np.exp(logits - logits.max())
    masks = model.layer_masks(device)
    return ImageRun(tokens=tuple(patch_tokens(c.n_patches)),
                    weights=tuple(i.weights[0].float().cpu().numpy() for i in out.intermediates),
                    logits=logits, probs=probs / probs.sum(),
                    classes=tuple(str(n) for n in (class_names or range(c.n_classes))),
                    grid=tuple(c.grid), patch_size=c.patch_size,
                    masks=tuple(m.cpu().numpy() for m in masks) if masks is not None else None)
