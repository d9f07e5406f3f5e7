"""model.data.digit_check: the digits the model learned from pass, a screenshot or noise does not."""
import io
import json
from pathlib import Path

import numpy as np
from PIL import Image

from model import checkpoints
from model.data.digit_check import digit_likeness
from model.data.images import preprocess


def model_input(png: bytes, fit_ink: bool = True) -> np.ndarray:
    """The (8, 8) image in [0, 1] the page shows the digit model, as the page's preprocessing makes it."""
    pre = json.loads((Path(checkpoints.ASSETS) / "vit_digits.json").read_text())["preprocess"]
    img = Image.open(io.BytesIO(png)).convert("RGB")
    return preprocess(img, size=8, grayscale=True, mean=pre["mean"], std=pre["std"], ink_light=True,
                      fit_ink=fit_ink).stages[-2][1]


def screenshot_png() -> bytes:
    """A white page with lines of dark-grey text bars: what a learner may upload by mistake."""
    rng = np.random.default_rng(0)
    a = np.full((200, 300), 255, np.uint8)
    for r in range(10, 190, 16):
        a[r:r + 8, 10:10 + rng.integers(100, 280)] = rng.integers(0, 120)
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, "PNG")
    return buf.getvalue()


def test_almost_every_training_digit_is_typical():
    from sklearn.datasets import load_digits
    x = load_digits().images / 16.0
    x = x / x.max(axis=(1, 2), keepdims=True)                 # stretched as the page stretches an image
    typical = np.mean([digit_likeness(a).typical for a in x])
    assert typical >= 0.99


def test_the_shipped_digit_samples_are_typical_with_or_without_the_crop():
    for f in sorted((Path(checkpoints.ASSETS) / "samples").glob("digit_*.png")):
        for fit in (False, True):
            assert digit_likeness(model_input(f.read_bytes(), fit)).typical, (f.name, fit)


def test_a_screenshot_and_noise_are_not_typical():
    assert not digit_likeness(model_input(screenshot_png())).typical
    noise = np.random.default_rng(1).random((8, 8))
    looks = digit_likeness(noise / noise.max())
    assert not looks.typical and looks.dark < 0.2
