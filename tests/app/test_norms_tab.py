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
    table = at.table[-1].value
    assert table.loc["standardises"].tolist() == ["each token (row), over its C dimensions",
                                                  "each dimension (column), over the T tokens"]
    assert max(float(v) for v in table.loc["largest |mean| along it"]) < 1e-6
    # std is √(σ² / (σ² + ε)), a little under 1 for a small σ²: the page shows torch's own gap, to 2 digits
    bn_np = torch_bn.detach().numpy()
    gaps = (np.abs(torch_ln.std(1) - 1).max(), np.abs(bn_np.std(0) - 1).max())
    shown = [float(v) for v in table.loc["largest |std − 1| along it"]]
    np.testing.assert_allclose(shown, gaps, rtol=0.05, atol=1e-9)
    alone = table.iloc[3]
    assert table.index[3].startswith("largest change of “") and table.index[3].endswith("” with fewer tokens")
    assert float(alone["LayerNorm"]) == 0.0 and float(alone["BatchNorm"]) > 0.0   # the query token is not the last
    assert any("LayerNorm, not BatchNorm" in e.value for e in at.markdown)
