"""In a real browser: the masks page draws its masks, reach and live maps, measures the cost on demand, and
shows typed markup as text."""
import pytest
from playwright.sync_api import expect

from model import checkpoints
from tests.browser.conftest import open_app_page, shot, wait_for_app

HEATMAP = '[data-testid="stPlotlyChart"] .heatmaplayer image'
LINES = '[data-testid="stPlotlyChart"] .scatterlayer .trace'


@pytest.fixture(scope="module", autouse=True)
def shipped_model():
    """The live-effect tab runs a shipped model: without one these tests fail, they do not pass unseen."""
    if not checkpoints.shipped():
        pytest.fail("assets/ holds no model; the masks page's live effect needs one: python -m model.train <name>")


def open_page(page, server_url):
    open_app_page(page, server_url, "masks.py")


def open_tab(page, name: str):
    page.get_by_role("tab", name=name).click()
    panel = page.get_by_role("tabpanel", name=name)
    expect(panel).to_be_visible()
    return panel


def test_masks_page_draws_every_tab_and_measures(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 2400})
    open_page(page, server_url)
    page.get_by_role("heading", name="Masks & sparse attention").wait_for()
    panel = open_tab(page, "Pattern lab")
    # predict first: no mask is drawn before the prediction (each would give its answer away)
    expect(panel.get_by_text("Patterns A and B are drawn once you have predicted.")).to_be_visible(timeout=60_000)
    expect(panel.locator(HEATMAP)).to_have_count(0)
    page.get_by_test_id("stCheckbox").get_by_text("Predict first", exact=True).click()   # off: drawn at once
    wait_for_app(page)
    expect(panel.locator(HEATMAP).nth(2)).to_be_attached(timeout=60_000)      # A, B, their difference (and the grid)
    expect(panel.get_by_text("density of A", exact=False)).to_be_visible(timeout=60_000)
    shot(page, "masks_lab")
    panel = open_tab(page, "Receptive field")
    expect(panel.locator(HEATMAP)).to_have_count(2, timeout=60_000)
    expect(panel.get_by_text("every token reaches every other after", exact=False).first).to_be_visible(
        timeout=60_000)
    shot(page, "masks_reach")
    panel = open_tab(page, "Live effect")
    expect(panel.locator(HEATMAP)).to_have_count(2, timeout=60_000)
    expect(panel.get_by_text("0 exactly")).to_be_visible(timeout=60_000)
    shot(page, "masks_live")
    panel = open_tab(page, "Cost")
    panel.locator(LINES).first.wait_for(timeout=60_000)
    panel.get_by_role("button", name="Measure").click()
    expect(panel.locator('[data-testid="stDataFrame"]')).to_be_visible(timeout=180_000)
    wait_for_app(page, timeout=120_000)
    shot(page, "masks_cost")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_typed_markup_stays_text_in_the_live_effect(page, server_url):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_page(page, server_url)
    panel = open_tab(page, "Live effect")
    box = panel.get_by_role("textbox", name="Text", exact=True)
    box.wait_for(timeout=60_000)
    box.fill("<img src=x onerror=alert(1)> the restaurant was busy .")
    box.press("Control+Enter")
    wait_for_app(page, timeout=120_000)
    expect(panel.locator(HEATMAP)).to_have_count(2, timeout=60_000)
    assert page.locator("img[src=x]").count() == 0
    expect(panel.get_by_text("tokens N")).to_be_visible(timeout=60_000)
    assert dialogs == []                                   # the typed onerror never ran
