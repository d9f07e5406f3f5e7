"""Value-weighted attention (model/analysis/value_norms.py, Kobayashi et al. 2020) against a direct computation:
f_h(x_j) is what the model's own output projection makes of head h's value alone, ‖Σ_h α f‖ is the norm of the
summed vectors, and the mixing share and rollout from norms follow their definitions."""
import numpy as np
import pytest
import torch

from model.analysis import value_norms as vn
from model.analysis.attention_views import rollout
from model.engine.capture import capturing
from model.engine.config import preset
from model.engine.transformer import Transformer


def _captured(n=7):
    torch.manual_seed(0)
    model = Transformer(preset("tiny", 40, n_heads=4)).eval()
    with torch.inference_mode(), capturing("weights", "v"):
        out = model.encode(torch.arange(3, 3 + n)[None])
    w = torch.stack([i.weights[0] for i in out.intermediates]).numpy()          # (L, H, N, N)
    v = torch.stack([i.v[0] for i in out.intermediates]).numpy()                # (L, H, N, D)
    return model, w, v


def test_transformed_values_are_the_output_projection_of_one_head_alone():
    model, w, v = _captured()
    f = vn.transformed_values(v, vn.output_projections(model))
    L, H, N, D = v.shape
    for layer in range(L):
        proj = model.encoder.layers[layer].self_attn.w_o
        for h in range(H):
            z = torch.zeros(N, H * D)
            z[:, h * D:(h + 1) * D] = torch.from_numpy(v[layer, h])
            with torch.inference_mode():
                direct = (proj(z) - proj.bias).numpy()                            # W_O's bias is left out
            np.testing.assert_allclose(f[layer, h], direct, atol=1e-5)


def test_layer_norms_are_the_norm_of_the_summed_weighted_vectors():
    model, w, v = _captured()
    f = vn.transformed_values(v, vn.output_projections(model))
    summed = np.einsum("lhij,lhjc->lijc", w.astype(np.float64), f.astype(np.float64))   # (L, N, N, C)
    np.testing.assert_allclose(vn.layer_norms(w, f), np.linalg.norm(summed, axis=-1), atol=1e-5)
    norms = vn.value_norms(f)
    np.testing.assert_allclose(vn.weighted_norms(w, norms)[1, 2, 3, 4], w[1, 2, 3, 4] * np.linalg.norm(f[1, 2, 4]),
                               rtol=1e-5)


def test_mixing_share_and_norm_rollout_follow_their_definitions():
    moved = np.array([[[1.0, 3.0], [0.0, 2.0]]])                     # (L=1, N=2, N=2)
    residual = np.array([[4.0, 2.0]])
    np.testing.assert_allclose(vn.mixing_share(moved, residual), [[0.5, 0.5]])
    np.testing.assert_allclose(vn.norm_rollout(moved, residual)[0], [[5 / 8, 3 / 8], [0.0, 1.0]])
    # where every residual norm equals the attention's total, rollout from norms is raw rollout's half-and-half
    w = np.random.default_rng(0).dirichlet(np.ones(4), size=(2, 1, 4))            # one head: norms 1
    np.testing.assert_allclose(vn.norm_rollout(w[:, 0], np.ones((2, 4))), rollout(w), atol=1e-12)


def test_a_large_weight_on_a_small_vector_loses_its_row():
    raw = np.array([[0.8, 0.2], [0.1, 0.9]])
    shares = vn.row_normalised(raw * np.array([0.1, 1.0]))          # key 0 moves a tenth of key 1
    assert vn.differ(raw, shares).tolist() == [True, False]
    (row,) = vn.disagreements(raw, shares)
    assert (row["query"], row["raw_key"], row["norm_key"]) == (0, 0, 1)
    assert row["raw_key_share"] == pytest.approx(0.08 / 0.28)
