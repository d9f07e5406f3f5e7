"""LayerNorm against BatchNorm on the same (T, C) activations, checked against torch.nn.LayerNorm and
torch.nn.BatchNorm1d (batch statistics, no affine), and what the layer's first LayerNorm reads."""
import numpy as np
import torch

from model.analysis import norms
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from viz.norms import plot_norm_heatmaps, plot_norm_stats


def _x(T=7, C=12):
    return np.random.default_rng(1).normal(loc=3.0, scale=2.0, size=(T, C)) * np.linspace(0.5, 4, 12)


def test_the_two_norms_equal_torch_layer_norm_and_batch_norm():
    x = _x()
    t = torch.tensor(x)
    ln = torch.nn.LayerNorm(12, elementwise_affine=False, eps=1e-5).double()(t)
    bn = torch.nn.BatchNorm1d(12, affine=False, track_running_stats=False, eps=1e-5).double().train()(t)
    assert np.abs(norms.layer_norm(x) - ln.numpy()).max() < 1e-12
    assert np.abs(norms.batch_norm(x) - bn.detach().numpy()).max() < 1e-12


def test_each_norm_standardises_its_own_axis_only():
    c = norms.compare(_x(), token=2)
    ln_mean, ln_std = c.stats("layer", 1)                            # per token
    bn_mean, bn_std = c.stats("batch", 0)                            # per dimension
    assert np.abs(ln_mean).max() < 1e-12 and np.abs(ln_std - 1).max() < 1e-5
    assert np.abs(bn_mean).max() < 1e-12 and np.abs(bn_std - 1).max() < 1e-5
    assert np.abs(c.stats("layer", 0)[1] - 1).max() > 0.1            # LayerNorm leaves the columns unequal
    assert np.abs(c.stats("batch", 1)[1] - 1).max() > 0.1            # BatchNorm leaves the rows unequal


def test_a_token_alone_keeps_its_layer_norm_but_not_its_batch_norm():
    x = _x()
    c = norms.compare(x, token=2)
    assert c.layer_alone_change == 0.0
    by_hand = (x[2] - x[:3].mean(0)) / np.sqrt(x[:3].var(0) + 1e-5)  # BatchNorm over tokens 0, 1, 2 only
    assert np.isclose(c.batch_prefix_change, np.abs(by_hand - c.batch[2]).max()) and c.batch_prefix_change > 0.1
    assert norms.compare(x, token=6).batch_prefix_change == 0.0      # the prefix is the whole batch
    assert np.all(norms.batch_norm(x[:1]) == 0.0)                    # a batch of one: all zeros


def test_the_first_norm_reads_the_residual_sum_post_ln_and_x_pre_ln():
    torch.manual_seed(0)
    for norm in ("post", "pre"):
        model = Transformer(ModelConfig(vocab_size=10, d_model=16, n_heads=2, n_layers=1, d_ff=32, norm=norm)).eval()
        X = np.random.default_rng(0).normal(size=(5, 16))
        got = norms.first_norm_input(model, X, 0)
        with torch.no_grad():
            attn, _ = model.encoder.layers[0].self_attn(torch.tensor(X, dtype=torch.float32)[None])
        expected = X + attn[0].double().numpy() if norm == "post" else X
        assert np.abs(got - expected).max() < 1e-5


def test_the_figures_hold_the_three_matrices_and_the_statistics():
    c = norms.compare(_x(), token=0)
    tokens = [f"t{i}" for i in range(7)]
    fig = plot_norm_heatmaps(c.x, c.layer, c.batch, tokens=tokens)
    assert len(fig.data) == 3 and np.allclose(np.asarray(fig.data[1].z), c.layer)
    stats = {k: dict(zip(("token_mean", "token_std", "dim_mean", "dim_std"), (*c.stats(k, 1), *c.stats(k, 0))))
             for k in ("x", "layer", "batch")}
    fig = plot_norm_stats(stats, tokens=tokens)
    assert len(fig.data) == 12 and sum(t.showlegend for t in fig.data) == 3
