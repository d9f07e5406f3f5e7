"""scikit-learn's handwritten digits (8×8, 1,797 images, ink levels 0–16) and the one split every digit recipe
trains and tests on: train_test_split(test_size=0.2, stratify=y, random_state=0) -> 1,437 / 360.

    x_train, y_train, x_test, y_test = split()     # images (B, 1, 8, 8) in [0, 1] (ink bright), labels int64"""
import numpy as np

SPLIT = "test_size=0.2 stratify random_state=0"


def split() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_test, y_test): images (B, 1, 8, 8) float32 in [0, 1] (ink bright), labels int64."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    d = load_digits()
    x = (d.images / 16.0).astype(np.float32)[:, None]
    x_tr, x_te, y_tr, y_te = train_test_split(x, d.target.astype(np.int64), test_size=0.2, stratify=d.target,
                                              random_state=0)
    return x_tr, y_tr, x_te, y_te
