"""Image page costs: loading a 12-megapixel phone JPEG (decode + checks), preprocessing it, and one run of
each shipped image model with attention captured, against the fast path without capture."""
import io
import statistics

import numpy as np
import torch
from PIL import Image

from bench._timing import wall_ms
from model import checkpoints
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
    for name in ("vit_digits", "vit_scenes", "swin_scenes"):
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
    return out
