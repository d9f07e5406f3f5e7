"""Sinusoidal table, shift identity, offset-only similarity, RoPE and ALiBi: known numbers and identities."""
import math

import numpy as np
import pytest
import torch

from model.analysis.relative import alibi_bias, alibi_slopes, offset_spread, rope, rope_scores, same_content_scores
from model.analysis.shift import (
    closed_form_similarity,
    offset_profile,
    shift_errors,
    shift_matrix,
    similarity,
    wavelengths,
)
from model.engine.positions import PositionalEncoding, added_positions, learned_table, sinusoidal


def test_sinusoidal_formula_at_known_points():
    pe = sinusoidal(60, 4)
    assert pe.shape == (60, 4) and pe.dtype == np.float64
    np.testing.assert_array_equal(pe[0], [0.0, 1.0, 0.0, 1.0])                 # sin 0, cos 0
    assert pe[1, 0] == pytest.approx(math.sin(1.0), abs=1e-15)
    assert pe[1, 1] == pytest.approx(math.cos(1.0), abs=1e-15)
    assert pe[50, 2] == pytest.approx(math.sin(50 / 10000 ** (2 / 4)), abs=1e-15)   # sin(0.5)
    assert pe[50, 3] == pytest.approx(math.cos(0.5), abs=1e-15)


def test_sinusoidal_refuses_odd_width():
    with pytest.raises(ValueError, match="even"):
        sinusoidal(4, 5)


def test_wavelengths_form_a_geometric_series_from_two_pi_towards_10000_two_pi():
    w = wavelengths(128)
    assert w[0] == pytest.approx(2 * math.pi)
    ratios = w[1:] / w[:-1]
    np.testing.assert_allclose(ratios, 10000 ** (2 / 128), rtol=1e-12)
    assert 2 * math.pi * 1000 < w[-1] < 10000 * 2 * math.pi


@pytest.mark.parametrize("k", [1, 7, 100, -5])
@pytest.mark.parametrize("d_model", [16, 128])
def test_shift_identity_holds_for_every_position_in_float64(k, d_model):
    errors = shift_errors(k, 500, d_model)
    assert errors.shape == (500,)
    assert errors.max() <= 1e-9


def test_shift_matrix_is_a_block_rotation():
    m = shift_matrix(3, 8)
    np.testing.assert_allclose(m @ m.T, np.eye(8), atol=1e-14)                    # orthogonal
    assert np.count_nonzero(m[:2, 2:]) == 0 and np.count_nonzero(m[2:, :2]) == 0  # 2x2 blocks only
    np.testing.assert_allclose(shift_matrix(2, 8) @ shift_matrix(3, 8), shift_matrix(5, 8), atol=1e-14)


def test_shift_matrix_does_not_fit_a_different_offset():
    pe = sinusoidal(20, 16)
    wrong = pe[:10] @ shift_matrix(4, 16).T
    assert np.abs(pe[5:15] - wrong).max() > 0.1


def test_sinusoidal_similarity_depends_on_offset_only():
    prof = offset_profile(similarity(sinusoidal(300, 64)))
    assert np.max(prof["max"] - prof["min"]) < 1e-9
    np.testing.assert_allclose(prof["mean"], closed_form_similarity(prof["offset"], 64), atol=1e-9)
    assert prof["mean"][0] == pytest.approx(32.0)                                # |PE(i)|² = d/2


def test_offset_profile_detects_a_table_that_is_not_offset_only():
    table = np.random.default_rng(0).normal(size=(40, 16))
    prof = offset_profile(similarity(table))
    assert np.max(prof["max"] - prof["min"]) > 1.0


def test_rope_keeps_norms_and_rotates_pairs():
    x = np.random.default_rng(1).normal(size=(6, 8))
    r = rope(x, np.arange(6))
    np.testing.assert_allclose(np.linalg.norm(r, axis=1), np.linalg.norm(x, axis=1), rtol=1e-12)
    np.testing.assert_array_equal(r[0], x[0])                                    # position 0: no turn
    c, s = math.cos(1.0), math.sin(1.0)                                          # pair 0 turns by pos·1
    assert r[1, 0] == pytest.approx(x[1, 0] * c - x[1, 1] * s)
    assert r[1, 1] == pytest.approx(x[1, 0] * s + x[1, 1] * c)


def test_rope_score_depends_on_offset_only():
    rng = np.random.default_rng(2)
    q, k = rng.normal(size=(2, 16))
    rope_s = same_content_scores(q, k, 64, "rope")
    assert offset_spread(rope_s).max() < 1e-12
    assert offset_spread(same_content_scores(q, k, 64, "absolute")).max() > 0.1
    # any pair of positions with the same offset gives the same score
    s1 = rope_scores(q[None], k[None], [3], [10])[0, 0]
    s2 = rope_scores(q[None], k[None], [103], [110])[0, 0]
    assert s1 == pytest.approx(s2, abs=1e-12)
    assert s1 != pytest.approx(rope_scores(q[None], k[None], [3], [11])[0, 0], abs=1e-6)


def test_alibi_slopes_follow_the_paper():
    np.testing.assert_allclose(alibi_slopes(8), [2.0 ** -(h + 1) for h in range(8)])
    assert len(alibi_slopes(6)) == 6 and np.all(alibi_slopes(6) > 0)


@pytest.mark.parametrize("H", [4, 8, 16])
def test_alibi_formula_as_shown_counts_heads_from_0_like_their_labels(H):
    """The page labels heads H0…; its formula m_h = 2^(−8(h+1)/H) must give H0's slope at h = 0 (the paper's
    2^(−8h/H) counts h from 1: read with h = 0 it would give 1, a slope no head has)."""
    for h, m in enumerate(alibi_slopes(H)):
        assert m == pytest.approx(2.0 ** (-8 * (h + 1) / H))
    assert alibi_slopes(H)[0] != 1.0


def test_alibi_bias_is_linear_in_distance_and_causal_when_asked():
    b = alibi_bias(5, 0.5)
    assert b[4, 1] == pytest.approx(-1.5) and b[1, 4] == pytest.approx(-1.5)
    assert np.all(np.diag(b) == 0)
    c = alibi_bias(5, 0.5, causal=True)
    assert np.isneginf(c[1, 4]) and c[4, 1] == pytest.approx(-1.5)


def test_learned_table_stops_at_max_len_while_sinusoidal_goes_on():
    torch.manual_seed(0)
    learned = PositionalEncoding("learned", 8, 4)
    assert added_positions(learned, 8).shape == (8, 4)
    with pytest.raises(ValueError, match="max_len=8"):
        added_positions(learned, 9)
    fixed = PositionalEncoding("sinusoidal", 8, 4)
    np.testing.assert_allclose(added_positions(fixed, 20), sinusoidal(20, 4), atol=1e-6)


def test_learned_table_is_read_only_from_models_that_have_one(tiny_config, tiny_model):
    from dataclasses import replace

    from model.engine.transformer import Transformer
    assert learned_table(tiny_model) is None                                     # sinusoidal
    model = Transformer(replace(tiny_config, pos_encoding="learned"))
    table = learned_table(model)
    assert table.shape == (tiny_config.max_len, tiny_config.d_model)
    np.testing.assert_array_equal(table, model.embed.pos.table.weight.detach().numpy())
