"""Image page costs: loading a 12-megapixel phone JPEG (decode + checks), preprocessing it, and one run of
each shipped image model with attention captured, against the fast path without capture; for the classifiers
side by side (ViT, Swin, DaViT), their parameters, the attention pairs they compute over all layers and their fast
path against the ViT of the same data, in one run; ImageGPT's completion of the lower half of a digit."""
import io
import statistics

import numpy as np
import torch
from PIL import Image

from bench._timing import wall_ms
from model import checkpoints
from model.analysis.image_cost import attention_pairs, parameters
from model.data.images import load_image, preprocess
from model.tasks.image_run import run_image


def _ms(fn, repeats: int) -> float:
    fn()                                                            # warm up
    return wall_ms(fn, repeats, statistics.mean)


def run(quick: bool = False) -> dict:
    repeats = 3 if quick else 10
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:3000, 0:4000]
    smooth = np.stack([xx / 16, yy / 12, (xx + yy) / 28], axis=-1) % 256            # a photo-like gradient
    photo = Image.fromarray((smooth + rng.normal(0, 4, smooth.shape)).clip(0, 255).astype(np.uint8))
    buf = io.BytesIO()
    photo.save(buf, "JPEG", quality=85)
    data = buf.getvalue()
    out = {"images_load_12mp_jpeg_ms": _ms(lambda: load_image(data), max(1, repeats // 3))}
    img = load_image(data).image
    out["images_preprocess_12mp_to_24px_ms"] = _ms(
        lambda: preprocess(img, size=24, grayscale=False, mean=[0.5] * 3, std=[0.25] * 3), max(1, repeats // 3))
    for name in ("vit_digits", "swin_digits", "davit_digits", "vit_scenes", "swin_scenes"):
        if name not in checkpoints.shipped():
            continue
        model, meta = checkpoints.load(name)
        c = model.config
        x = rng.normal(size=(c.channels, c.image_size, c.image_size)).astype(np.float32)
        captured = _ms(lambda: run_image(model, x, meta["preprocess"]["classes"]), repeats)
        with torch.inference_mode():
            fast = _ms(lambda: model(torch.from_numpy(x)[None]), repeats)
        out[f"images_{name}_run_with_capture_ms"] = captured
        out[f"images_{name}_fast_path_ms"] = fast
        out[f"images_{name}_capture_over_fast"] = captured / fast
        out[f"images_{name}_parameters"] = parameters(model)
        out[f"images_{name}_attention_pairs"] = sum(attention_pairs(model))
        vit = f"images_vit_{name.split('_')[1]}_fast_path_ms"
        if not name.startswith("vit_") and vit in out:
            out[f"images_{name}_fast_over_vit"] = fast / out[vit]
    if "imagegpt_digits" in checkpoints.shipped():
        from model.tasks.image_completion import complete
        model, _ = checkpoints.load("imagegpt_digits")
        pixels = rng.integers(0, model.config.levels, size=(1, model.config.n_pixels))
        out["images_imagegpt_complete_half_ms"] = _ms(lambda: complete(model, pixels, pixels.shape[1] // 2),
                                                      max(1, repeats // 3))
        out["images_imagegpt_digits_parameters"] = parameters(model)
    return out
