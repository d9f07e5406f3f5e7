"""The Coreference page in a real browser: the paragraph's arrows drawn once "it" was predicted, the minimal-pair
and ranking tabs drawn, typed markup shown as text (never run) with predictions switched off. Screenshots:
screenshots/coreference_*.png."""
from playwright.sync_api import expect

from tests.browser.conftest import shot, wait_for_app

CHART = '[data-testid="stPlotlyChart"]'


def _open(page, server_url):
    """Home, then the sidebar link (a deep link makes Streamlit probe /coreference/_stcore: a 404)."""
    page.goto(server_url)
    wait_for_app(page)
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Coreference").click()
    page.wait_for_url("**/coreference", timeout=30_000)
    wait_for_app(page, timeout=180_000)
    page.set_viewport_size({"width": 1400, "height": 2400})     # the whole page in each screenshot


def _wait_charts(page, n: int):
    page.wait_for_function(f"() => document.querySelectorAll('{CHART} .main-svg').length >= {n}", timeout=90_000)


def test_coreference_page_draws_arrows_pairs_ranking_and_escapes_typed_text(page, server_url):
    _open(page, server_url)
    # predict first: the arrows wait for a pick and Reveal
    expect(page.get_by_text("Which word will it attend to most", exact=False)).to_be_visible(timeout=60_000)
    assert page.locator(CHART).count() == 0
    page.locator('[data-testid="stButtonGroup"] button').filter(has_text="restaurant").click()
    wait_for_app(page)
    page.get_by_role("button", name="Reveal").click()
    wait_for_app(page)
    expect(page.get_by_text("Correct: “restaurant”.", exact=False)).to_be_visible(timeout=60_000)
    expect(page.get_by_text("points it (word 11) at restaurant (word 2)", exact=False)).to_be_visible(timeout=60_000)
    _wait_charts(page, 2)
    expect(page.locator(f"{CHART} .heatmaplayer image").first).to_be_attached(timeout=60_000)
    shot(page, "coreference_paragraph")

    page.get_by_role("tab", name="Minimal pairs").click()
    page.get_by_role("combobox", name="Minimal pair").click()
    page.get_by_role("option", name="big / small").click()
    wait_for_app(page)
    expect(page.get_by_text("in A, it → trophy; in B → suitcase", exact=False)).to_be_visible(timeout=60_000)
    shot(page, "coreference_pairs")

    page.get_by_role("tab", name="Heads ranked").click()
    expect(page.locator(f"{CHART} .barlayer .bars path")).to_have_count(16, timeout=60_000)
    shot(page, "coreference_ranking")

    # typed markup is shown as text, never run
    page.get_by_role("tab", name="Pronoun → heads").click()
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.get_by_test_id("stCheckbox").get_by_text("Predict first", exact=True).click()   # off: shown at once
    wait_for_app(page)
    box = page.get_by_role("textbox", name="Text", exact=True)
    box.fill('The <img src=x onerror=alert(1)> cafe closed because it was busy. <b>bold</b>')
    box.press("Control+Enter")
    wait_for_app(page)
    expect(page.get_by_text("points it (word", exact=False)).to_be_visible(timeout=60_000)
    _wait_charts(page, 2)
    assert page.locator("img[src='x']").count() == 0 and not dialogs
    expect(page.locator(f"{CHART} text", has_text="<").first).to_be_attached(timeout=60_000)   # "<" as a word
    shot(page, "coreference_typed")
