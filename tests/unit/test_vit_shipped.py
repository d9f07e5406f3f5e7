"""Claims about the shipped image models, checked against their weights through the contract command
`python -m model.evaluate --json` (run once here for every image model): the held-out bars of issue 19 for Swin,
DaViT and ImageGPT among them."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from model import checkpoints
from model.data.images import load_image, preprocess
from model.tasks.image_run import run_image

ROOT = Path(__file__).resolve().parents[2]
IMAGE_MODELS = ("vit_digits", "vit_scenes", "swin_digits", "swin_scenes", "davit_digits", "imagegpt_digits")


@pytest.fixture(scope="module")
def figures():
    out = subprocess.run([sys.executable, "-m", "model.evaluate", "--json", *IMAGE_MODELS], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_every_image_model_is_evaluated_and_marked_as_image(figures):
    assert set(figures) == set(IMAGE_MODELS)
    for name in IMAGE_MODELS:
        meta = checkpoints.read_meta(name)
        assert meta["modality"] == "image" and meta["retrain"] == f"python -m model.train {name}"


def test_vit_digits_reaches_its_held_out_accuracy_bar(figures):
    d = figures["vit_digits"]
    assert d["test_n"] == 360 and d["test_acc"] >= 0.95
    assert d["cls_attention_on_ink"] > d["cls_attention_on_ink_uniform"]


def test_scene_models_answer_and_look_at_the_red_shape(figures):
    v, s = figures["vit_scenes"], figures["swin_scenes"]
    for d in (v, s):
        assert d["test_n"] == 1000 and d["test_acc"] >= 0.95 and d["test_acc_crowded"] >= 0.9
    assert v["cls_attention_on_objects"] > 2 * v["cls_attention_on_objects_uniform"]
    assert v["cls_attention_on_objects_rollout"] > v["cls_attention_on_objects_uniform"]
    assert s["pooled_rollout_on_objects"] > 2 * s["pooled_rollout_on_objects_uniform"]


def test_swin_is_compared_with_the_global_vit(figures):
    s = figures["swin_scenes"]
    assert s["vit_test_acc"] == figures["vit_scenes"]["test_acc"]
    assert s["test_acc_minus_vit"] == pytest.approx(s["test_acc"] - s["vit_test_acc"], abs=1e-4)
    # stage 1: 36 patches in 3×3 windows (smaller at shifted borders), stage 2: 9 tokens in one window
    assert s["tokens_per_stage"] == [36, 9] and s["attention_pairs_vs_global"] < 0.2


@pytest.mark.parametrize("name", ["swin_digits", "davit_digits"])
def test_hierarchical_digit_models_reach_the_bar_with_merging_and_windows(figures, name):
    d = figures[name]
    assert d["test_n"] == 360 and d["test_acc"] >= 0.95
    assert d["tokens_per_stage"] == [64, 16, 4] and d["width_per_stage"] == [32, 64, 128]
    assert d["attention_outside_window"] == 0.0


def test_davit_reports_its_channel_maps(figures):
    assert figures["davit_digits"]["channels_per_group"] == [16, 16, 16]


def test_imagegpt_beats_its_baselines(figures):
    g = figures["imagegpt_digits"]
    assert g["bits_per_pixel_heldout"] < g["bits_per_pixel_baseline"]
    assert g["completion_class_kept"] >= 0.6
    assert g["completion_class_kept"] >= g["completion_class_kept_mode_fill"] + 0.1
    assert g["completion_class_kept_blank"] < g["completion_class_kept_mode_fill"] < g["completion_class_kept_full"]


def _heldout_digits() -> tuple[np.ndarray, np.ndarray]:
    """The 360 held-out digits of the recipes' stated split, taken here from scikit-learn: ink levels 0–16 as
    [0, 1], train_test_split(test_size=0.2, stratify=y, random_state=0); (360, 8, 8) and (360,)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    d = load_digits()
    _, x, _, y = train_test_split(d.images / 16.0, d.target, test_size=0.2, stratify=d.target, random_state=0)
    return x, y


def _share_right(model, images: np.ndarray, labels: np.ndarray, pre: dict) -> float:
    """Share of images (B, C, S, S) in [0, 1], normalised with the shipped mean and std, whose top class is the
    label."""
    mean, std = (np.asarray(pre[k], dtype=np.float32)[:, None, None] for k in ("mean", "std"))
    x = torch.from_numpy(((images - mean) / std).astype(np.float32))
    with torch.no_grad():
        top = np.concatenate([model(x[i:i + 100]).argmax(-1).numpy() for i in range(0, len(x), 100)])
    return sum(int(t) == int(label) for t, label in zip(top, labels)) / len(labels)


@pytest.mark.parametrize("name", ["vit_digits", "swin_digits", "davit_digits"])
def test_digit_accuracy_is_the_share_of_held_out_digits_answered_right(figures, name):
    model, meta = checkpoints.load(name)
    x, y = _heldout_digits()
    assert figures[name]["test_acc"] == pytest.approx(_share_right(model, x[:, None], y, meta["preprocess"]),
                                                      abs=1e-4)


@pytest.mark.parametrize("name", ["vit_scenes", "swin_scenes"])
def test_scene_accuracy_is_the_share_of_held_out_scenes_answered_right(figures, name):
    from model.data import scenes
    from model.training.recipes import vit_scenes
    model, meta = checkpoints.load(name)
    x, y, _ = scenes.make_dataset(1000, vit_scenes.RECIPE["test_seed"])
    crowd_x, crowd_y, _ = scenes.make_dataset(500, vit_scenes.CROWDED_SEED, objects=(5, 7))
    assert figures[name]["test_acc"] == pytest.approx(_share_right(model, x, y, meta["preprocess"]), abs=1e-4)
    assert figures[name]["test_acc_crowded"] == pytest.approx(
        _share_right(model, crowd_x, crowd_y, meta["preprocess"]), abs=1e-4)


def test_imagegpt_bits_are_the_mean_surprise_of_each_held_out_pixel(figures):
    """−log2 p(pixel | the pixels before it) from the model's softmax, averaged over the 360 × 64 held-out pixels
    (8 grey levels: floor(x · 8), 1.0 in the top one); the baseline from each position's level counts in the
    training split, add-one smoothed, worked out here."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    model, _ = checkpoints.load("imagegpt_digits")
    d = load_digits()
    train, test = train_test_split(d.images / 16.0, test_size=0.2, stratify=d.target, random_state=0)
    levels = [np.minimum(7, np.floor(a * 8)).astype(np.int64).reshape(len(a), 64) for a in (train, test)]
    train_px, test_px = levels
    with torch.no_grad():
        probs = torch.softmax(model(torch.from_numpy(test_px)).double(), -1).numpy()       # (360, 64, 8)
    bits = -np.log2(np.take_along_axis(probs, test_px[..., None], -1)).mean()
    counts = np.stack([np.bincount(train_px[:, i], minlength=8) + 1.0 for i in range(64)])     # (64, 8)
    baseline = -np.log2((counts / counts.sum(1, keepdims=True))[np.arange(64), test_px]).mean()
    g = figures["imagegpt_digits"]
    assert g["bits_per_pixel_heldout"] == pytest.approx(bits, abs=1e-3)
    assert g["bits_per_pixel_baseline"] == pytest.approx(baseline, abs=1e-3)


def test_the_digit_samples_are_read_correctly_through_the_upload_pipeline():
    model, meta = checkpoints.load("vit_digits")
    pre = meta["preprocess"]
    files = sorted((checkpoints.ASSETS / "samples").glob("digit_*.png"))
    assert len(files) == 10
    right = 0
    for f in files:
        img = load_image(f.read_bytes()).image
        x = preprocess(img, size=8, grayscale=True, mean=pre["mean"], std=pre["std"], ink_light=True).x
        run = run_image(model, x, pre["classes"])
        right += run.classes[int(np.argmax(run.probs))] == f.stem.split("_")[1]
    assert right >= 9
