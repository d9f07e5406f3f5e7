"""ImageGPT on tiny random models: raster order is causal (no pixel sees a later pixel, in the weights and in the
logits), quantisation, completion keeps the given pixels, and bits per pixel on cases known by construction."""
import numpy as np
import pytest
import torch

from model.architectures.imagegpt import ImageGPT, ImageGPTConfig, dequantise, quantise
from model.tasks.image_completion import bits_per_pixel, complete, pixel_attention
from model.training.recipes import imagegpt_digits

TINY = ImageGPTConfig(image_size=4, levels=4, d_model=16, n_heads=2, n_layers=2, d_ff=32, dropout=0.0)


def _model():
    torch.manual_seed(0)
    return ImageGPT(TINY).eval()


def test_no_pixel_attends_to_a_later_pixel():
    pixels = np.random.default_rng(0).integers(0, 4, 16)
    w = pixel_attention(_model(), pixels)                                    # (L, H, 16, 16)
    assert w.shape == (2, 2, 16, 16)
    later = np.triu(np.ones((16, 16), dtype=bool), k=1)
    assert np.all(w[..., later] == 0)
    assert np.all(w[..., ~later] > 0)                                       # start token and every earlier pixel
    np.testing.assert_allclose(w.sum(-1), 1, atol=1e-5)


def test_changing_later_pixels_leaves_every_earlier_prediction_unchanged():
    model = _model()
    a = torch.from_numpy(np.random.default_rng(1).integers(0, 4, (1, 16)))
    for t in (0, 5, 15):
        b = a.clone()
        b[0, t:] = (b[0, t:] + 1) % 4                                       # pixels t … 15 changed
        with torch.no_grad():
            la, lb = model(a), model(b)
        torch.testing.assert_close(la[0, :t + 1], lb[0, :t + 1])           # position t reads pixels < t only
        if t < 15:
            assert not torch.allclose(la[0, t + 1:], lb[0, t + 1:])


def test_quantise_cuts_equal_bins_and_dequantise_spans_black_to_white():
    x = np.array([0.0, 0.24, 0.25, 0.5, 0.99, 1.0])
    assert quantise(x, 4).tolist() == [0, 0, 1, 2, 3, 3]
    np.testing.assert_allclose(dequantise(np.array([0, 1, 3]), 4), [0.0, 1 / 3, 1.0])


def test_completion_keeps_the_given_pixels_and_greedy_takes_each_argmax():
    model = _model()
    pixels = np.random.default_rng(2).integers(0, 4, (3, 16))
    out = complete(model, pixels, given=8)
    np.testing.assert_array_equal(out.pixels[:, :8], pixels[:, :8])
    np.testing.assert_array_equal(out.pixels[:, 8:], out.probs.argmax(-1))
    with torch.no_grad():
        reread = torch.softmax(model(torch.from_numpy(out.pixels))[:, 8:], -1).numpy()   # the whole prefix each time
    np.testing.assert_allclose(out.probs, reread, atol=1e-5)               # the cached steps give the same numbers
    sampled = complete(model, pixels, given=8, greedy=False, seed=3)
    np.testing.assert_array_equal(sampled.pixels, complete(model, pixels, given=8, greedy=False, seed=3).pixels)
    with pytest.raises(ValueError, match="given=16"):
        complete(model, pixels, given=16)


def test_a_model_with_uniform_predictions_spends_log2_levels_bits_per_pixel():
    model = _model()
    with torch.no_grad():
        model.decoder.lm_head.weight.zero_()
        model.decoder.lm_head.bias.zero_()
    pixels = np.random.default_rng(4).integers(0, 4, (5, 16))
    assert bits_per_pixel(model, pixels) == pytest.approx(2.0, abs=1e-6)


def test_per_position_baseline_on_a_known_case():
    # 8 levels, add-one smoothing: a position that was always level 2 in four training images gives level 2
    # probability 5/12 -> log2(12/5) bits
    train = np.full((4, 64), 2)
    test = np.full((1, 64), 2)
    assert imagegpt_digits.baseline_bits(train, test) == pytest.approx(np.log2(12 / 5))
