"""In a real browser, on the shipped default model: the explorer shows the textbook paragraph, the
all-heads image and the zoomed head; hovering the zoom shows a word-level weight that equals the model's own;
clicking a map in the grid zooms that head. Screenshots: screenshots/explorer_*.png."""
import hashlib
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app_pages import _resources
from model import checkpoints
from model.data import text_input
from model.tasks.attention_run import run_text
from model.tasks.word_attention import word_attention
from tests.browser.conftest import shot, wait_for_app

HOVER = re.compile(r"query: (.+) ·(\d+)\s*key: (.+) ·(\d+)\s*weight: ([0-9.]+)")


def open_explorer(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 2400})
    page.goto(server_url)
    wait_for_app(page)
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Attention explorer").click()
    page.wait_for_url("**/explorer", timeout=30_000)
    wait_for_app(page, timeout=180_000)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .imagelayer image', timeout=120_000)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .heatmaplayer image', timeout=120_000)


def zoom_image(page):
    return page.locator('[data-testid="stPlotlyChart"]').nth(1).locator(".heatmaplayer image")


@pytest.fixture(scope="module")
def shipped_run():
    name = _resources.DEFAULT_TEXT_MODEL
    if name not in checkpoints.shipped():
        pytest.fail(f"{name} is not in assets/: train it with `python -m model.train {name}`")
    model, meta = checkpoints.load(name)
    return model, text_input.tokenizer_of(meta)


def test_paragraph_grid_zoom_and_a_hover_that_shows_the_models_weight(page, server_url, shipped_run):
    open_explorer(page, server_url)
    assert page.locator('[data-testid="stException"]').count() == 0
    expect(page.get_by_text("Attention explorer", exact=True).first).to_be_visible()
    expect(page.get_by_role("heading", name="All heads")).to_be_visible()
    text = page.get_by_role("textbox", name="Text", exact=True).input_value()
    assert "ham sandwich" in text and "Their ambiance" in text
    shot(page, "explorer_paragraph")

    box = zoom_image(page).bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.27, box["y"] + box["height"] * 0.26)
    hover = page.locator(".hoverlayer .hovertext").first
    expect(hover).to_contain_text("weight:", timeout=10_000)
    match = HOVER.search(hover.text_content())
    assert match, hover.text_content()
    i, j, shown = int(match.group(2)), int(match.group(4)), float(match.group(5))
    model, tok = shipped_run
    run = run_text(model, tok, text, "cls_sep")
    words = word_attention(run.weights, run.words)             # the page shows whole words by default
    assert match.group(1) == run.word_texts[i] and match.group(3) == run.word_texts[j]
    assert shown == pytest.approx(float(words[0, 0, i, j]), abs=1e-6)
    shot(page, "explorer_hover")


def test_clicking_a_map_in_the_grid_zooms_that_head(page, server_url):
    open_explorer(page, server_url)
    grid = page.locator('[data-testid="stPlotlyChart"]').first.locator(".imagelayer image")
    box = grid.bounding_box()
    # layer 2, head 1 of a 4 × 4 grid: the centre of row 2, column 1
    page.mouse.click(box["x"] + box["width"] * 1.5 / 4, box["y"] + box["height"] * 2.5 / 4)
    expect(page.get_by_role("heading", name="L2 H1")).to_be_visible(timeout=60_000)
    wait_for_app(page, timeout=120_000)
    shot(page, "explorer_grid_click")


def pick(page, label: str, option: str):
    box = page.get_by_role("combobox", name=label, exact=True)
    box.click()
    box.fill(option)
    page.get_by_role("option", name=option, exact=True).click()
    wait_for_app(page, timeout=120_000)


def type_text(page, value: str):
    box = page.get_by_role("textbox", name="Text", exact=True)
    box.fill(value)
    box.press("Control+Enter")
    wait_for_app(page, timeout=120_000)


def test_emptying_the_text_keeps_the_picked_layer_and_head_in_widgets_and_zoom(page, server_url):
    """An emptied text box stops the page before the pickers, and Streamlit forgets widgets a run does not draw:
    the layer and head went back to 0. Kept values must also show in the selectboxes, not only in the zoom."""
    open_explorer(page, server_url)
    pick(page, "Layer", "L2")
    pick(page, "Head", "H3")
    type_text(page, "")
    expect(page.get_by_text("Type some text to see its attention.")).to_be_visible(timeout=30_000)
    type_text(page, "The cat sat because it was tired.")
    expect(page.get_by_role("heading", name="L2 H3")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("combobox", name="Layer", exact=True)).to_have_value("L2")
    expect(page.get_by_role("combobox", name="Head", exact=True)).to_have_value("H3")
    shot(page, "explorer_text_emptied_and_back")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_downloads_are_made_on_click_and_hold_the_runs_data(page, server_url):
    """The files are callables (nothing rendered until pressed): pressing one must still deliver the file, named
    after what it shows and a short hash of the text (the first 6 hex digits of its 8-byte BLAKE2b)."""
    open_explorer(page, server_url)
    text = page.get_by_role("textbox", name="Text", exact=True).input_value()
    tag = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()[:6]
    page.get_by_role("tab", name="Downloads").click()
    files, names = {}, {}
    for label in ("Grid (PNG)", "Zoomed head (SVG)", "All weights (CSV)"):
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name=label).click()
        files[label] = Path(info.value.path()).read_bytes()
        names[label] = info.value.suggested_filename
    assert names == {"Grid (PNG)": f"coref_encoder_all_heads_{tag}.png",
                     "Zoomed head (SVG)": f"coref_encoder_L0H0_{tag}.svg",
                     "All weights (CSV)": f"coref_encoder_weights_{tag}.csv"}, names
    assert files["Grid (PNG)"].startswith(b"\x89PNG\r\n\x1a\n")
    assert b"<svg" in files["Zoomed head (SVG)"]
    header = files["All weights (CSV)"].decode().splitlines()[0]
    assert "layer" in header and "head" in header, header
    assert page.locator('[data-testid="stException"]').count() == 0
