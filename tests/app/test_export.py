"""Slide exports on the pages: every chart's popover offers a slide PNG and an SVG named after what it shows and
ending in a short hash of its text (two texts never share a name), the camera button saves under the same name,
a button serves a labelled SVG, and the step-by-step page's GIF has one frame per stage of the arithmetic. On the
shipped coref_encoder."""
import hashlib
import io
import json
from unittest import mock

import pytest
from PIL import Image
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from tests.app.conftest import ROOT, switch_page
from viz import render

SLIDE_LABELS = ("Slide PNG (2x)", "SVG")
TEXT = "The restaurant refused to serve me because it was full."


def tag(text: str) -> str:
    """The short hash a file name ends in: the first 6 hex digits of the text's 8-byte BLAKE2b."""
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()[:6]


@pytest.fixture(scope="module", autouse=True)
def one_browser():
    """The renders of this module share viz.render's Chromium; it is closed when they are done."""
    yield
    render.close()


def linked(page: str, **params) -> AppTest:
    """The app opened on the page `page` with <params> (not yet run): one run draws the view asked for."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update(params)
    switch_page(at, page)
    return at


def run_catching_files(at):
    """Run the page; return {file name: (mime type, data or the callable that makes it)} of its downloads."""
    files = {}
    add, add_deferred = MediaFileManager.add, MediaFileManager.add_deferred

    def spy_add(self, data, mimetype, coordinates, file_name=None, is_for_static_download=False):
        files[file_name] = (mimetype, data)
        return add(self, data, mimetype, coordinates, file_name, is_for_static_download)

    def spy_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        files[file_name] = (mimetype, data_callable)
        return add_deferred(self, data_callable, mimetype, coordinates, file_name, **kw)

    with mock.patch.object(MediaFileManager, "add", spy_add), \
            mock.patch.object(MediaFileManager, "add_deferred", spy_deferred):
        at.run()
    assert not at.exception, [e.message for e in at.exception]
    return files


@pytest.fixture(scope="module")
def explorer():
    at = linked("explorer.py", explorer_text=TEXT, explorer_layer="L3", explorer_head="H1")
    return at, run_catching_files(at)


def test_every_explorer_chart_offers_a_slide_png_and_svg_named_after_what_it_shows(explorer):
    at, files = explorer
    for stem in (f"coref_encoder_all_heads_{tag(TEXT)}", f"coref_encoder_L3H1_attention_{tag(TEXT)}"):
        assert files[f"{stem}.png"][0] == "image/png"
        assert files[f"{stem}.svg"][0] == "image/svg+xml"
    labels = [b.proto.label for b in at.get("download_button") if b.proto.label in SLIDE_LABELS]
    charts = at.get("plotly_chart")
    assert labels == list(SLIDE_LABELS) * len(charts)
    assert not [name for name in files if name and name.startswith("plot-image")]
    zoom = next(c for c in charts if "explorer_zoom" in c.proto.id)
    camera = json.loads(zoom.proto.config)["toImageButtonOptions"]
    assert camera["filename"] == f"coref_encoder_L3H1_attention_{tag(TEXT)}" and camera["scale"] == 2


def test_another_text_gives_other_file_names_and_the_same_text_the_same(explorer):
    at, files = explorer
    other = TEXT.replace("full", "closed")
    at.text_area(key="explorer_text").set_value(other)
    again = run_catching_files(at)
    assert f"coref_encoder_L3H1_attention_{tag(other)}.svg" in again
    assert f"coref_encoder_L3H1_attention_{tag(TEXT)}.svg" not in again and tag(other) != tag(TEXT)
    at.text_area(key="explorer_text").set_value(TEXT)
    assert f"coref_encoder_L3H1_attention_{tag(TEXT)}.svg" in run_catching_files(at)


def test_the_zoom_svg_button_serves_the_slide_with_title_and_caption(explorer):
    assert render.browser_path() is not None, "this test draws the slide in Chromium: apt-get install chromium"
    _, files = explorer
    svg = files[f"coref_encoder_L3H1_attention_{tag(TEXT)}.svg"][1]().decode()
    assert "L3 H1 attention" in svg
    assert "coref_encoder · L3 H1 · “" in svg                            # the caption: model, head, the text
    assert "key (attended to)" in svg and "query (attends from)" in svg
    assert 'class="colorbar' in svg or "colorbar" in svg


def test_step_by_step_offers_a_gif_of_one_frame_per_stage():
    at = linked("step_by_step.py", steps_text="The cat sat because it was tired.")
    run_catching_files(at)
    labels = [b.label for b in at.button if b.label.startswith("Make GIF")]
    assert labels == ["Make GIF (9 frames)"]           # X, LN₁(X) (pre-LN), Q, K, V, QKᵀ, QKᵀ/√d_k, softmax, Z


def test_generation_gif_is_made_on_click_with_one_distinct_frame_per_token():
    assert render.browser_path() is not None, "this test draws the frames in Chromium: apt-get install chromium"
    at = linked("generation.py", gen_tab="Generate step by step", gen_max_new="2")
    run_catching_files(at)
    assert not [b for b in at.get("download_button") if b.proto.label.startswith("GIF")]    # nothing made yet
    next(b for b in at.button if b.label == "Make GIF (2 frames)").click()
    files = run_catching_files(at)
    mime, data = files[f"general_gpt_L3mean_generation_2tokens_{tag(at.text_input(key='gen_prompt').value)}.gif"]
    assert mime == "image/gif"
    with Image.open(io.BytesIO(data)) as im:
        assert im.n_frames == 2
        first = im.convert("RGB").tobytes()
        im.seek(1)
        assert im.convert("RGB").tobytes() != first
    assert [b.proto.label for b in at.get("download_button") if b.proto.label.startswith("GIF (")]
