"""In a real browser: the step-by-step page draws the lecture's matrices with their printed numbers, the
√d_k curves (once the softmax without scaling was predicted) react to the toggle, and the live tabs draw the
shipped model's head (or say none is shipped)."""
import json
from pathlib import Path

import numpy as np
from playwright.sync_api import expect

from model import checkpoints
from model.reference import worked_example
from tests.browser.conftest import open_app_page, shot, wait_for_app

HEATMAP = '[data-testid="stPlotlyChart"] .heatmaplayer'


def has_text_model() -> bool:
    return any(checkpoints.read_meta(n).get("modality", "text") == "text"
               and checkpoints.read_meta(n)["config"].get("kind") in ("encoder", "decoder")
               for n in checkpoints.shipped())


def settle(page):
    """Wait for the rerun to finish and no element to be drawn faded (stale)."""
    page.wait_for_timeout(300)
    wait_for_app(page)
    page.wait_for_function("() => !document.querySelector('[data-stale=\"true\"]')", timeout=60_000)


def open_tab(page, name: str):
    page.get_by_role("tab", name=name, exact=True).click()
    settle(page)


def test_step_by_step_lecture_scaling_and_live_tabs(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 2200})      # tall enough for a screenshot of a whole tab
    open_app_page(page, server_url, "step_by_step.py")
    page.get_by_role("heading", name="Self-attention, step by step").wait_for()

    if has_text_model():
        page.locator(HEATMAP).first.wait_for(timeout=60_000)
        expect(page.get_by_role("heading", name="Two conventions, one result")).to_be_visible(timeout=60_000)
    else:
        expect(page.get_by_text("No trained text model is shipped").first).to_be_visible()
    shot(page, "step_by_step_live")

    open_tab(page, "The lecture's example")
    panel = page.get_by_role("tabpanel", name="The lecture's example")
    panel.locator(HEATMAP).first.wait_for(timeout=60_000)
    for printed in ("0.9598", "0.0402", "-1.6272", "1.1811"):        # numbers drawn inside the heatmap cells
        expect(panel.locator("text.textpoint, g.textpoint text, text").filter(has_text=printed).first).to_be_attached()
    expect(panel.get_by_text("0.7311").first).to_be_visible()
    shot(page, "step_by_step_lecture")
    with page.expect_download(timeout=60_000) as info:                # the file is made on click
        panel.get_by_role("button", name="All steps (JSON)").click()
    steps = json.loads(Path(info.value.path()).read_text())
    assert np.allclose(steps["weights"], worked_example()["weights"], rtol=0, atol=1e-12)

    open_tab(page, "Why √d_k")
    panel = page.get_by_role("tabpanel", name="Why √d_k")
    if has_text_model():                                   # predict first: the curves wait for a pick and Reveal
        assert panel.locator('[data-testid="stMetricValue"]').count() == 0
        panel.locator('[data-testid="stButtonGroup"] button').filter(has_text="More peaked").click()
        settle(page)
        panel.get_by_role("button", name="Reveal").click()
        settle(page)
        expect(panel.get_by_text("Correct: “More peaked (closer to one-hot)”.", exact=False)).to_be_visible()
        shot(page, "step_by_step_predicted")
    panel.locator('[data-testid="stPlotlyChart"] .scatterlayer').first.wait_for(timeout=60_000)
    before = panel.locator('[data-testid="stMetricValue"]').first.inner_text()
    panel.get_by_test_id("stCheckbox").get_by_text("No scaling", exact=True).click()
    expect(panel.locator('[data-testid="stMetricValue"]').first).not_to_have_text(before)
    settle(page)
    shot(page, "step_by_step_scaling")
    assert page.locator('[data-testid="stException"]').count() == 0
