"""Run an image model with attention captured: one normalised image in, the plain result for pages out."""
import numpy as np
import torch

from model.architectures.vit import ViT
from model.tasks.attention_run import capture_stack
from model.tasks.results import AttentionRun


def patch_tokens(n_patches: int) -> list[str]:
    return ["<cls>"] + [f"p{i}" for i in range(n_patches)]


@torch.inference_mode()
def run_image(model: ViT, image: np.ndarray, class_names: list[str] | None = None,
              keep_qkv: bool = False) -> AttentionRun:
    """image: (C, H, W) float, already normalised. Returns AttentionRun with tokens "<cls>", "p0", ..,
    weights (L, H, N+1, N+1), logits (1, n_classes); extra: probs (n_classes,), classes, grid,
    patch_size, and masks (L, N+1, N+1) bool for windowed models."""
    c = model.config
    if image.shape != (c.channels, c.image_size, c.image_size):
        raise ValueError(f"image has shape {image.shape}; this model reads {(c.channels, c.image_size, c.image_size)}")
    device = next(model.parameters()).device
    x = torch.as_tensor(np.ascontiguousarray(image), dtype=torch.float32, device=device)[None]
    out = model.encode(x, capture=True, keep_qkv=keep_qkv)
    logits = model.head(out.x[:, 0]).float().cpu().numpy()                 # (1, n_classes)
    probs = np.exp(logits[0] - logits[0].max())
    extra = {"probs": probs / probs.sum(), "classes": list(class_names or range(c.n_classes)),
             "grid": c.grid, "patch_size": c.patch_size}
    masks = model.layer_masks(device)
    if masks is not None:
        extra["masks"] = torch.stack(masks).cpu().numpy()
    return AttentionRun(tokens=patch_tokens(c.n_patches), logits=logits, extra=extra,
                        **capture_stack(out, keep_qkv))
