"""imagegpt_digits: ImageGPT on scikit-learn's digits (the vit_digits split, 1,437 / 360): 8 grey levels, the
64 pixels in raster order, a causal decoder (d_model 48, 3 layers, 4 heads, pre-LN, no dropout) predicting
each pixel from the ones before it. Shifts of up to one pixel as augmentation.

evaluate(): bits_per_pixel_heldout (the model on the 360 held-out digits) against bits_per_pixel_baseline (each
position's own level frequencies in the training split); completion_class_kept: the share of held-out digits
whose top half, completed greedily by the model, an independent classifier (scikit-learn's SVC on the
quantised training split) assigns to the original digit; the same for one sampled completion, for the bottom
half filled with each position's most common training level (_mode_fill, the number to beat) and left black
(_blank); and the classifier's accuracy on the whole quantised held-out digits (_full, the ceiling)."""
import numpy as np
import torch
import torch.nn.functional as F

from model import checkpoints
from model.architectures.imagegpt import ImageGPT, ImageGPTConfig, dequantise, quantise
from model.data import digits
from model.tasks.image_completion import bits_per_pixel, complete

from . import vit_digits

NAME = "imagegpt_digits"
ARCH = "model.architectures.imagegpt:ImageGPT"
CONFIG = ImageGPTConfig(image_size=8, levels=8, d_model=48, n_heads=4, n_layers=3, d_ff=192, dropout=0.0)
RECIPE = dict(epochs=100, batch=64, lr=2e-3, weight_decay=0.05, augment="shift by up to 1 pixel",
              split=vit_digits.RECIPE["split"], given="top half (32 pixels)", classifier="sklearn SVC()")
GIVEN = 32


def pixels_of(x: np.ndarray) -> np.ndarray:
    """(B, 1, 8, 8) in [0, 1] -> (B, 64) quantised levels, raster order."""
    return quantise(x[:, 0], CONFIG.levels).reshape(len(x), -1)


def train(seed: int = 0):
    from .swin_digits import shift_pixels
    torch.manual_seed(seed)
    x_tr, _, _, _ = digits.split()
    model = ImageGPT(CONFIG)
    xt = torch.from_numpy(x_tr)
    per_epoch = int(np.ceil(len(x_tr) / RECIPE["batch"]))

    def next_batch(step):
        epoch, k = divmod(step, per_epoch)
        idx = np.array_split(np.random.default_rng([seed, epoch]).permutation(len(x_tr)), per_epoch)[k]
        moved = shift_pixels(xt[torch.from_numpy(idx)], np.random.default_rng([seed, epoch, k])).numpy()
        return torch.from_numpy(pixels_of(moved))

    def loss_fn(m, b):
        return F.cross_entropy(m(b).flatten(0, 1), b.flatten()), b.numel()

    from model.training import checkpointed
    checkpointed.fit(NAME, model, next_batch, loss_fn, RECIPE["epochs"] * per_epoch, RECIPE["lr"],
                     RECIPE["weight_decay"])
    metrics = measure(model)
    meta = {"arch": ARCH, "config": model.to_dict(), "tokenizer": None, "modality": "image",
            "preprocess": {**vit_digits.preprocess_meta(x_tr), "levels": CONFIG.levels, "given": GIVEN},
            "recipe": {**RECIPE, "seed": seed}, "metrics": metrics}
    checkpoints.save(NAME, model, meta)
    print(metrics)


def classifier():
    """SVC on the quantised training digits (grey values level / (levels − 1)), independent of the model."""
    from sklearn.svm import SVC
    x_tr, y_tr, _, _ = digits.split()
    return SVC().fit(dequantise(pixels_of(x_tr), CONFIG.levels), y_tr)


def mode_fill() -> np.ndarray:
    """(64,) each position's most common level in the training split."""
    q = pixels_of(digits.split()[0])
    return np.array([np.bincount(q[:, i], minlength=CONFIG.levels).argmax() for i in range(q.shape[1])])


def baseline_bits(train: np.ndarray, test: np.ndarray) -> float:
    """Bits per pixel of a per-position model: each position's level frequencies in train (add-one smoothed)."""
    L = CONFIG.levels
    freq = np.stack([np.bincount(train[:, i], minlength=L) + 1.0 for i in range(train.shape[1])])   # (64, L)
    p = freq / freq.sum(1, keepdims=True)
    return float(-np.log2(p[np.arange(test.shape[1]), test]).mean())


def measure(model) -> dict:
    x_tr, _, x_te, y_te = digits.split()
    train_px, test_px = pixels_of(x_tr), pixels_of(x_te)
    svc = classifier()

    def kept(pixels):
        return round(float((svc.predict(dequantise(pixels, CONFIG.levels)) == y_te).mean()), 4)

    filled, blank = test_px.copy(), test_px.copy()
    filled[:, GIVEN:] = mode_fill()[GIVEN:]
    blank[:, GIVEN:] = 0
    return {"bits_per_pixel_heldout": round(bits_per_pixel(model, test_px), 4),
            "bits_per_pixel_baseline": round(baseline_bits(train_px, test_px), 4),
            "completion_class_kept": kept(complete(model, test_px, GIVEN).pixels),
            "completion_class_kept_sampled": kept(complete(model, test_px, GIVEN, greedy=False, seed=0).pixels),
            "completion_class_kept_mode_fill": kept(filled), "completion_class_kept_blank": kept(blank),
            "completion_class_kept_full": kept(test_px), "test_n": len(y_te)}


def evaluate() -> dict:
    model, _ = checkpoints.load(NAME)
    return measure(model)
