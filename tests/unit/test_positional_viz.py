"""viz/positional.py draws what it is given: traces, ranges, escaped labels; and it stays torch/streamlit-free."""

import numpy as np
import torch
from torch import nn

from model.analysis.shift import offset_profile, similarity
from model.engine.positions import learned_table, sinusoidal
from viz import positional as vp


def test_waves_draw_the_chosen_columns():
    pe = sinusoidal(30, 8)
    fig = vp.plot_waves(pe, [0, 5])
    assert [t.name for t in fig.data] == ["dim 0 (sin)", "dim 5 (cos)"]
    np.testing.assert_allclose(fig.data[1].y, pe[:, 5])


def test_offset_profile_draws_a_band_and_a_mean_per_table():
    prof = offset_profile(similarity(sinusoidal(12, 8)))
    fig = vp.plot_offset_profile({"a": prof, "b": prof})
    assert [t.name for t in fig.data] == ["a: min–max", "a: mean", "b: min–max", "b: mean"]
    np.testing.assert_allclose(fig.data[1].y, prof["mean"])
    assert len(fig.data[0].x) == 2 * len(prof["offset"])


def test_signed_heatmap_is_centred_and_escapes_labels():
    m = np.array([[0.5, -2.0], [1.0, 0.0]])
    fig = vp.plot_signed(m, x_labels=["<b>a</b>", "b"], y_labels=["x", "y"])
    h = fig.data[0]
    assert (h.zmin, h.zmax) == (-2.0, 2.0)
    assert h.x[0].startswith("&lt;b&gt;a&lt;/b&gt;")
    assert vp.plot_signed(m, zrange=1.0).data[0].zmax == 1.0


def test_shift_errors_plot_shows_the_limit_on_a_log_axis():
    fig = vp.plot_shift_errors(np.array([1e-15, 0.0, 2e-14]), start=3)
    assert fig.layout.yaxis.type == "log"
    assert list(fig.data[0].x) == [3, 4, 5] and min(fig.data[0].y) > 0      # zero drawn at the floor
    assert any(t.name == "limit 1e-9" and t.y[0] == 1e-9 for t in fig.data)


def test_patch_grid_keeps_the_image_layout():
    fig = vp.plot_patch_grid(np.arange(6.0).reshape(2, 3) - 2, title="t")
    assert np.asarray(fig.data[0].z).shape == (2, 3)
    assert fig.layout.yaxis.scaleanchor == "x"


def test_learned_table_reads_a_vit_style_parameter():
    class PatchModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.pos = nn.Parameter(torch.arange(10.0).reshape(1, 5, 2))     # (1, 1 + patches, C)
    table = learned_table(PatchModel())
    assert table.shape == (5, 2) and table[4, 1] == 9.0
