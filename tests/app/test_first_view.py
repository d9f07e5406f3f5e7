"""A class's light first view (runtime/first_view.py) on the explorer (AppTest): with the class setting on,
a session's first run draws no Plotly chart, only inline images of the same pictures; the next run draws the
interactive charts with the images kept under them; later runs the charts alone. Without the setting (plain
`streamlit run`) the first run has the charts. Runs on a tiny random encoder in a temporary assets folder."""
import base64
import io
import re

import numpy as np
import pytest
from PIL import Image

from model.tasks.attention_run import run_text
from runtime import first_view
from tests.app.conftest import only_text_model, open_page
from tests.app.conftest import plotly_chart as chart
from viz import grid

TINY = "first_view_tiny_test"       # a name no shipped model uses, so process-wide caches cannot mix them up
TEXT = "The restaurant refused to serve me a ham sandwich because it only cooks vegetarian food."


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    with only_text_model(tmp_path_factory.mktemp("assets"), TINY, TEXT, seed=7, d_model=32, n_heads=2, n_layers=3,
                         d_ff=64, max_len=48) as model_tok:
        yield model_tok


def images(at) -> dict[str, str]:
    """alt text -> src of the page's first-view images."""
    found = {}
    for el in at.get("html"):
        for src, alt in re.findall(r'<img class="first-view" src="([^"]+)" alt="([^"]*)"', el.proto.body):
            found[alt] = src
    return found


def charts(at) -> list[str]:
    return [el.proto.id for el in at.get("plotly_chart")]


def png(src: str) -> np.ndarray:
    assert src.startswith("data:image/png;base64,")
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1]))).convert("RGB"))


def test_a_class_first_view_draws_images_then_the_interactive_charts(tiny, monkeypatch):
    monkeypatch.setenv(first_view.LIGHT_ENV, "1")
    model, tok = tiny
    at = open_page("explorer.py")
    assert not at.exception, [e.message for e in at.exception]
    assert charts(at) == []                                     # no plotly.js on the first view
    first = images(at)
    assert set(first) == {"All heads: 3 layers × 2 heads", "L0 H0 attention"}
    assert first["L0 H0 attention"].startswith("data:image/svg+xml;base64,")
    assert any("Drawing the interactive charts" in c.value for c in at.caption)

    # the grid image is the model's own attention: the picture viz draws from the weights of this text
    text = at.text_area(key="explorer_text").value
    weights = run_text(model, tok, text, "cls_sep").weights
    assert np.array_equal(png(first["All heads: 3 layers × 2 heads"]), png(first_view.png_src(
        grid.grid_image(weights).png)))      # the tiny tokenizer's tokens are whole words: no word view

    at.run()                                                    # the rerun the page asks for
    assert not at.exception
    assert images(at) == first                                  # kept under the charts until they are drawn
    grid_chart = chart(at, "explorer_grid")
    assert grid_chart["data"][0]["source"] == first["All heads: 3 layers × 2 heads"]   # the same picture
    chart(at, "explorer_zoom")
    assert any("explorer_lines" in c for c in charts(at))

    at.run()
    assert images(at) == {} and any("explorer_grid" in c for c in charts(at))


def test_without_the_class_setting_the_first_view_is_interactive(tiny, monkeypatch):
    monkeypatch.delenv(first_view.LIGHT_ENV, raising=False)
    at = open_page("explorer.py")
    assert not at.exception
    assert images(at) == {}
    assert {"explorer_grid", "explorer_zoom", "explorer_lines"} <= {k for c in charts(at) for k in
                                                                   ("explorer_grid", "explorer_zoom",
                                                                    "explorer_lines") if k in c}
