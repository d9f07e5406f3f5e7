"""The LayerNorm-vs-BatchNorm part of the step-by-step page's "The layer" tab (AppTest), on a tiny random post-LN
encoder saved to a temporary assets folder: it draws the activations the layer's first Add & Norm reads, and the
two norms of them as torch.nn.LayerNorm and torch.nn.BatchNorm1d compute them."""
from unittest import mock

import numpy as np
import pytest
import torch

from model import checkpoints
from model.analysis import steps
from tests.app.conftest import open_page
from tests.app.conftest import plotly_chart as chart
from tests.app.conftest import trace_z as z_of
from tests.conftest import save_random_text_model

TINY = "norms_tab_tiny_test"          # a name no real checkpoint uses
TEXT = "The restaurant refused to serve me a ham sandwich because it was too salty."


@pytest.fixture(scope="module")
def tiny_assets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("assets")
    model, tok = save_random_text_model(folder, TINY, TEXT, seed=5, d_model=32, n_heads=4, n_layers=2, d_ff=64,
                                        max_len=64)
    with mock.patch.object(checkpoints, "ASSETS", folder):
        yield model, tok


def test_the_layer_tab_compares_layer_norm_and_batch_norm_on_the_residual_sum(tiny_assets):
    model, tok = tiny_assets
    at = open_page("step_by_step.py")
    at.session_state["steps_tab"] = "The layer"
    at.selectbox(key="steps_layer").set_value(1).run()
    assert not at.exception, [e.message for e in at.exception]
    ids, tokens, _ = steps.encode_text(model, tok, TEXT, "cls_sep")
    X = steps.layer_inputs(model, ids)[1]                                   # (T, C) entering layer 1
    with torch.no_grad():
        attn, _ = model.encoder.layers[1].self_attn(torch.tensor(X, dtype=torch.float32)[None])
    expected = torch.tensor(X + attn[0].double().numpy())                  # X + MultiHead(X), post-LN's Add
    data = chart(at, "norm_heatmaps")["data"]
    x, ln, bn = (z_of(t) for t in data)
    assert np.abs(x - expected.numpy()).max() < 1e-5
    torch_ln = torch.nn.LayerNorm(32, elementwise_affine=False).double()(expected).numpy()
    torch_bn = torch.nn.BatchNorm1d(32, affine=False, track_running_stats=False).double().train()(expected)
    assert np.abs(ln - torch_ln).max() < 1e-4 and np.abs(bn - torch_bn.detach().numpy()).max() < 1e-4
    stats = chart(at, "norm_stats")["data"]
    assert len(stats) == 12 and {t["name"] for t in stats if t.get("showlegend")} == {
        "input X", "LayerNorm (each token over its C dimensions)", "BatchNorm (each dimension over the T tokens)"}
    m = {e.label: e.value for e in at.metric}
    ln_mean, ln_std = (float(v) for v in m["LayerNorm: largest |token mean|, |token std − 1|"].split(", "))
    assert ln_mean < 1e-6 and ln_std < 1e-3
    alone = next(v for k, v in m.items() if "alone vs in the text" in k)
    layer_change, batch_change = (float(v) for v in alone.split(" / "))
    assert layer_change == 0.0 and batch_change > 0.0                     # the query token "it" is not the last
    assert any("LayerNorm, not BatchNorm" in e.value for e in at.markdown)
