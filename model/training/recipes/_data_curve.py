"""How the digits ViT's held-out accuracy grows with its training set: the vit_digits recipe (same config, epochs,
batch, learning rate, seed) trained on stratified subsets of the 1,437 training digits, n = 50 … 1,437, each tested
on the same 360 held-out digits; beside it scikit-learn's SVC (an RBF kernel: nearness in pixel space built in) on
the same subsets. `python -m model.training.recipes._data_curve` writes assets/vit_digits_data_curve.json."""
import json

import numpy as np
import torch

from model import checkpoints
from model.data import digits

from . import _images, vit_digits

SIZES = (50, 100, 200, 400, 800, 1437)
FILE = "vit_digits_data_curve.json"


def subset(x: np.ndarray, y: np.ndarray, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """n training digits, stratified by class (all of them when n is the whole split)."""
    if n >= len(x):
        return x, y
    from sklearn.model_selection import train_test_split
    xs, _, ys, _ = train_test_split(x, y, train_size=n, stratify=y, random_state=seed)
    return xs, ys


def measure(seed: int = 0, sizes=SIZES) -> dict:
    """{"sizes", "vit_test_acc", "svc_test_acc", "recipe"}: one accuracy per training-set size."""
    from sklearn.svm import SVC

    from model.architectures.vit import ViT
    x_tr, y_tr, x_te, y_te = digits.split()
    pre = vit_digits.preprocess_meta(x_tr)                       # one normalisation for every subset
    test = _images.normalise(x_te, pre["mean"], pre["std"])
    recipe = {k: vit_digits.RECIPE[k] for k in ("epochs", "batch", "lr", "weight_decay")}
    vit, svc = [], []
    for n in sizes:
        xs, ys = subset(x_tr, y_tr, n, seed)
        torch.manual_seed(seed)
        model = ViT(vit_digits.CONFIG)
        _images.train_classifier(model, _images.normalise(xs, pre["mean"], pre["std"]), ys, seed=seed,
                                 label=f"vit_digits n={n}", **recipe)
        vit.append(round(float((_images.predict(model, test) == y_te).mean()), 4))
        flat = xs.reshape(len(xs), -1)
        svc.append(round(float((SVC().fit(flat, ys).predict(x_te.reshape(len(x_te), -1)) == y_te).mean()), 4))
        print(f"n={n}: ViT {vit[-1]}, SVC {svc[-1]}", flush=True)
    return {"sizes": list(sizes), "vit_test_acc": vit, "svc_test_acc": svc, "test_n": len(y_te),
            "recipe": {**recipe, "seed": seed, "config": "vit_digits"}}


def load() -> dict | None:
    """The shipped curve, or None when it has not been measured."""
    path = checkpoints.ASSETS / FILE
    return json.loads(path.read_text()) if path.is_file() else None


if __name__ == "__main__":
    torch.set_num_threads(1)
    (checkpoints.ASSETS / FILE).write_text(json.dumps(measure(), indent=1) + "\n")
