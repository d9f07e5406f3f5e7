"""The image page's views for the shipped Swin, DaViT and ImageGPT digits models (AppTest): per-stage shapes with a
stage selector and windows, the channel-attention maps, and ImageGPT's completions, pixel attention and next-pixel
distribution."""
import json

import numpy as np
import pytest

from tests.app.conftest import open_page, plotly_array


@pytest.fixture(scope="module")
def at():
    page = open_page("images.py")
    assert not page.exception
    return page


def _figures(at) -> dict:
    return {c.proto.id.split("-", 2)[-1]: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def test_swin_stages_have_their_own_tokens_windows_and_no_weight_outside_a_window(at):
    at.radio(key="img_model").set_value("swin_digits").run()
    assert not at.exception and not at.error
    headers = [h.value for h in at.header]
    assert headers[4] == "5 · Stages: windows, shifts and 2×2 merging"
    stages = at.table[0].value
    assert list(stages.iloc[:, 1]) == ["8×8 = 64", "4×4 = 16", "2×2 = 4"] and list(stages.iloc[:, 2]) == [32, 64, 128]
    assert len(at.selectbox(key="img_query_swin_digits_s0").options) == 64
    assert list(stages.iloc[:, 0]) == [0, 1, 2]                          # stages count from 0, like layers L0…
    assert at.radio(key="img_stage_swin_digits").options == ["Stage 0 · 8×8 tokens", "Stage 1 · 4×4 tokens",
                                                            "Stage 2 · 2×2 tokens"]
    said = " ".join(m.value for m in at.markdown)
    assert "a learned bias per head and relative offset" in said       # Swin has its bias table
    assert "**1 number**" in said and "1 numbers" not in said          # a 1×1 patch of one grey value
    at.radio(key="img_stage_swin_digits").set_value(1).run()
    assert not at.exception
    assert at.selectbox(key="img_query_swin_digits_s1").options == [f"p{i}" for i in range(16)]
    caption = next(c.value for c in at.caption if c.value.startswith("Attention from"))
    assert "over the 16 tokens of stage 1" in caption and caption.endswith("Largest weight outside the window: 0.")
    figs = _figures(at)
    heat = [t for t in figs["overlay_0"]["data"] if t["type"] == "heatmap"][0]
    assert plotly_array(heat["z"]).shape == (8, 8)                       # 4×4 tokens of 2×2 pixels each
    assert {"stages", "windows_2", "windows_3", "rollout", "rollout_query"} <= set(figs)
    at.radio(key="img_stage_swin_digits").set_value(0).run()


def test_davit_positions_are_said_as_its_convolution_not_a_relative_bias(at):
    """davit_digits has no bias table (its windows are built without one); each block starts with a depthwise 3×3
    convolution, as the Architecture page says. The page must say that, not Swin's relative bias."""
    from model import checkpoints
    from model.architectures.davit import ConvPosEnc
    model, _ = checkpoints.load("davit_digits")
    names = [n for n, _ in model.named_parameters()]
    assert not any("bias_table" in n for n in names)
    convs = [m for m in model.modules() if isinstance(m, ConvPosEnc)]
    assert convs and all(m.conv.kernel_size == (3, 3) and m.conv.groups == m.conv.in_channels for m in convs)
    at.radio(key="img_model").set_value("davit_digits").run()
    assert not at.exception and not at.error
    said = " ".join(m.value for m in at.markdown)
    assert "relative offset" not in said and "tells a token where the others are" not in said
    assert "depthwise 3×3 convolution" in said and "no learned position bias" in said


def test_davit_shows_channel_maps_beside_the_spatial_ones(at):
    at.radio(key="img_model").set_value("davit_digits").run()
    assert not at.exception and not at.error
    figs = _figures(at)
    assert plotly_array(figs["channel_map"]["data"][0]["z"]).shape == (16, 16)
    weights = plotly_array(figs["channel_map"]["data"][0]["z"])
    np.testing.assert_allclose(weights.sum(1), 1, atol=1e-3)             # each channel's row is a softmax
    maps = [t for t in figs["channel_maps"]["data"] if t["type"] == "heatmap"]
    assert len(maps) == 5 and plotly_array(maps[0]["z"]).shape == (8, 8)
    assert "overlay_0" in figs and "channel_map" in figs


def test_imagegpt_completes_the_lower_half_and_never_looks_ahead(at):
    at.radio(key="img_model").set_value("imagegpt_digits").run()
    assert not at.exception and not at.error
    figs = _figures(at)
    panels = [t for t in figs["gpt_completions"]["data"] if t["type"] == "image"]
    assert len(panels) == 2 + 1 + 4                                     # original, given, greedy, 4 samples
    titles = [a["text"] for a in figs["gpt_completions"]["layout"]["annotations"]]
    assert titles[1] == "given" and titles[2].startswith("greedy<br>ViT: ")
    at.slider(key="img_gpt_pixel").set_value(40).run()
    glow = [t for t in _figures(at)["gpt_attention_0"]["data"] if t["type"] == "heatmap"][0]
    z = plotly_array(glow["z"]).reshape(-1)
    assert np.isnan(z[40:]).all() and not np.isnan(z[:40]).any()       # pixels 40 … 63 are not seen
    bars = _figures(at)["gpt_next"]["data"][0]
    assert len(plotly_array(bars["y"])) == 8 and abs(plotly_array(bars["y"]).sum() - 1) < 1e-4


@pytest.mark.parametrize("case", ["corrupt bytes", "16-bit"])
def test_bad_and_odd_uploads_for_the_new_models_give_a_message_and_the_page_lives_on(at, case):
    from tests.unit.test_images_catalogue import CATALOGUE
    make, outcome, phrase = CATALOGUE[case]
    at.radio(key="img_model").set_value("imagegpt_digits").run()
    at.radio(key="img_source").set_value("Upload").run()
    at.file_uploader(key="img_upload").set_value(("upload.png", make(), "image/png")).run()
    assert not at.exception
    if outcome == "error":
        assert phrase in " ".join(e.value for e in at.error) and not at.get("plotly_chart")
    else:
        assert phrase in " ".join(i.value for i in at.info) and "gpt_completions" in _figures(at)
    at.radio(key="img_source").set_value("Sample").run()
    assert not at.error and "gpt_completions" in _figures(at)
