"""In a real browser, on the shipped default model: with the "Why this weight" tab open, clicking a cell of the zoomed
head brings that cell into the tab (in whole words, the query word's first piece and the key word's piece it weighs
most), and the score it shows is the model's own captured score. Screenshot: screenshots/explorer_why_click.png."""
import pytest
from playwright.sync_api import expect

from app_pages import _resources, _url
from model import checkpoints
from model.data import text_input
from model.tasks.attention_run import run_text
from tests.browser.conftest import shot, wait_for_app
from tests.browser.test_explorer import open_explorer, zoom_image


def test_clicking_a_zoom_cell_explains_its_weight_with_the_models_score(page, server_url):
    name = _resources.DEFAULT_TEXT_MODEL
    if name not in checkpoints.shipped():
        pytest.fail(f"{name} is not in assets/: train it with `python -m model.train {name}`")
    open_explorer(page, server_url)
    text = page.get_by_role("textbox", name="Text", exact=True).input_value()
    page.get_by_role("tab", name="Why this weight").click()
    panel = page.locator('[role="tabpanel"]:visible')
    expect(panel.get_by_text("score before softmax")).to_be_visible(timeout=60_000)
    wait_for_app(page, timeout=120_000)
    before = panel.get_by_role("combobox", name="Key piece", exact=True).input_value()
    box = zoom_image(page).bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.1, box["y"] + box["height"] * 0.26)     # hover first, as a hand does
    page.mouse.click(box["x"] + box["width"] * 0.1, box["y"] + box["height"] * 0.26)     # a key near the start
    page.wait_for_url("**explorer_why_k=*", timeout=60_000)
    wait_for_app(page, timeout=120_000)
    query = panel.get_by_role("combobox", name="Query piece", exact=True).input_value()
    key = panel.get_by_role("combobox", name="Key piece", exact=True).input_value()
    score = panel.locator('[data-testid="stMetric"]').nth(2).locator('[data-testid="stMetricValue"]').inner_text()

    model, meta = checkpoints.load(name)
    run = run_text(model, text_input.tokenizer_of(meta), text, "cls_sep", qkv=True, logits=False)
    labels = _url.word_labels(run.tokens)
    i, j = labels.index(query), labels.index(key)
    assert key != before and j < len(run.tokens) // 4
    word = next(w for w in run.words if j in w)
    assert i == next(w for w in run.words if i in w)[0]                               # the query word's first piece
    assert j == max(word, key=lambda p: run.weights[0, 0, i, p])                      # the key piece it weighs most
    assert float(score) == pytest.approx(float(run.scores[0, 0, i, j]), abs=1e-4)
    shot(page, "explorer_why_click")
