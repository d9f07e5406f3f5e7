"""The data-size curve of the image page: its subsets keep the classes' shares, and the shipped curve has one
accuracy per size for both models, the ViT's last one measured on the whole training split."""
import numpy as np

from model.analysis.image_cost import pixel_attention_cost
from model.training.recipes import _data_curve


def test_subsets_are_stratified_and_the_whole_split_is_kept_as_it_is():
    x, y = np.arange(200)[:, None], np.repeat(np.arange(10), 20)
    xs, ys = _data_curve.subset(x, y, 50)
    assert len(xs) == 50 and np.bincount(ys).tolist() == [5] * 10
    assert _data_curve.subset(x, y, 200)[0] is x


def test_the_shipped_curve_has_one_accuracy_per_size():
    curve = _data_curve.load()
    assert curve["sizes"] == list(_data_curve.SIZES) and curve["test_n"] == 360
    for key in ("vit_test_acc", "svc_test_acc"):
        assert len(curve[key]) == len(curve["sizes"]) and all(0 <= a <= 1 for a in curve[key])


def test_a_224_pixel_image_as_tokens_and_as_16_pixel_patches():
    assert pixel_attention_cost(224) == {"tokens": 50_176, "pairs": 50_176 ** 2, "bytes": 4 * 50_176 ** 2}
    assert pixel_attention_cost(224, 16)["tokens"] == 14 * 14 + 1                # and <cls>
