"""ViT code on tiny random models: shapes, the capture path, rollout, and a checkpoint round trip (Swin:
tests/unit/test_swin.py)."""
import numpy as np
import pytest
import torch

from model import checkpoints
from model.analysis.attention_views import rollout
from model.architectures.vit import ViT, ViTConfig
from model.tasks.image_run import run_image

TINY = dict(image_size=8, channels=1, patch_size=2, n_classes=3, d_model=16, n_heads=2, n_layers=2, d_ff=32)


def _model(cls=ViT, **kw):
    torch.manual_seed(0)
    return cls(ViTConfig(**{**TINY, **kw})).eval()


def test_run_image_returns_cls_and_patch_tokens_and_matches_the_fast_path():
    model = _model()
    img = np.random.default_rng(0).normal(size=(1, 8, 8)).astype(np.float32)
    run = run_image(model, img, ["a", "b", "c"])
    assert run.tokens[:3] == ("<cls>", "p0", "p1") and len(run.tokens) == 17
    assert run.stacked_weights().shape == (2, 2, 17, 17)
    np.testing.assert_allclose(run.stacked_weights().sum(-1), 1, atol=1e-5)
    with torch.no_grad():
        fast = model(torch.from_numpy(img)[None]).numpy()
    np.testing.assert_allclose(run.logits, fast[0], atol=1e-5)
    np.testing.assert_allclose(run.probs.sum(), 1, atol=1e-6)
    assert run.grid == (4, 4) and run.classes == ("a", "b", "c")


def test_run_image_refuses_a_wrongly_sized_image():
    with pytest.raises(ValueError, match="this model reads"):
        run_image(_model(), np.zeros((1, 16, 16), np.float32))


def test_moving_a_patch_changes_the_answer_only_through_positions():
    """Without positions a ViT is blind to patch order; with the learned table it is not."""
    model = _model()
    img = torch.randn(1, 1, 8, 8)
    swapped = img.clone()
    swapped[..., 0:2, 0:2], swapped[..., 6:8, 6:8] = img[..., 6:8, 6:8], img[..., 0:2, 0:2]
    with torch.no_grad():
        model.pos.normal_(0, 1.0)
        assert not torch.allclose(model(img), model(swapped), atol=1e-4)
        model.pos.zero_()
        torch.testing.assert_close(model(img), model(swapped), atol=1e-5, rtol=1e-5)


def test_rollout_of_one_layer_is_half_identity_plus_half_mean_attention():
    rng = np.random.default_rng(0)
    w = rng.random((1, 2, 5, 5))
    w /= w.sum(-1, keepdims=True)
    np.testing.assert_allclose(rollout(w)[0], 0.5 * np.eye(5) + 0.5 * w[0].mean(0))


def test_rollout_multiplies_layers_and_keeps_rows_stochastic():
    rng = np.random.default_rng(1)
    w = rng.random((3, 4, 6, 6))
    w /= w.sum(-1, keepdims=True)
    r = rollout(w)
    a = [0.5 * np.eye(6) + 0.5 * w[i].mean(0) for i in range(3)]
    np.testing.assert_allclose(r[2], a[2] @ a[1] @ a[0])
    np.testing.assert_allclose(r.sum(-1), 1)


def test_checkpoint_round_trip(tmp_path):
    model = _model()
    checkpoints.save("tiny_img", model, {"arch": "model.architectures.vit:ViT", "config": model.to_dict(),
                                         "modality": "image"}, tmp_path)
    back, meta = checkpoints.load("tiny_img", tmp_path)
    assert type(back) is ViT and meta["modality"] == "image"
    x = torch.randn(2, 1, 8, 8)
    with torch.no_grad():
        torch.testing.assert_close(back(x), model(x))
