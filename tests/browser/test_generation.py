"""In a real browser: the decoder page draws its charts, steps through generation, shows the beam
tree and keeps typed markup inert (the `page` fixture fails on console errors and off-loopback requests)."""
import re

from playwright.sync_api import expect

from model import checkpoints
from tests.browser.conftest import open_app_page, open_tab_with_chart, shot, wait_for_app


def open_page(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 2200})     # the whole page in one screenshot
    open_app_page(page, server_url, "generation.py")


open_tab = open_tab_with_chart


def test_generation_page_steps_through_and_draws_the_beam_tree(page, server_url):
    open_page(page, server_url)
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=60_000)
    expect(page.get_by_text("Greedy pick")).to_be_visible()
    shot(page, "generation_next_token")

    panel = open_tab(page, "Generate step by step")
    panel.locator('[data-testid="stPlotlyChart"] .heatmaplayer image').first.wait_for(timeout=60_000)
    title = panel.get_by_text(re.compile(r"^Step \d+: the choices$"))
    step = int(re.search(r"\d+", title.text_content()).group())
    panel.get_by_role("button", name="◀ back").click()
    wait_for_app(page)
    expect(panel.get_by_text(f"Step {step - 1}: the choices")).to_be_visible(timeout=30_000)
    shot(page, "generation_steps")

    panel = open_tab(page, "Beam search")
    expect(panel.locator('[data-testid="stPlotlyChart"] .scatterlayer .trace')).not_to_have_count(0)
    shot(page, "generation_beam")

    box = page.get_by_role("textbox", name="Prompt", exact=True)
    box.fill('<img src=x onerror="window.__xss=1"> the cafe')
    box.press("Enter")
    wait_for_app(page)
    panel = open_tab(page, "Generate step by step")
    expect(panel.get_by_text('<img src=x onerror="window.__xss=1"> the cafe')).to_be_visible(timeout=30_000)
    assert page.evaluate("() => window.__xss === undefined")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_fill_in_and_objectives_tabs_render(page, server_url):
    open_page(page, server_url)
    if "general_encoder" in checkpoints.shipped():
        open_tab(page, "Fill-in (encoder)")
        shot(page, "generation_fill")
    panel = open_tab(page, "Objectives side by side")
    expect(panel.get_by_text("Decoder loss terms")).to_be_visible()
    shot(page, "generation_objectives")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_emptying_the_prompt_loses_nothing_typed_in_the_other_tabs(page, server_url):
    """In the browser, a widget a run does not draw is forgotten: an emptied prompt used to stop the page before
    the tabs, and the fill-in text typed there came back as the default once the prompt was restored."""
    open_page(page, server_url)
    open_tab(page, "Fill-in (encoder)")
    fill = page.get_by_role("textbox", name="Text (type [MASK] or <mask> anywhere, or pick words below)", exact=True)
    fill.fill("the [MASK] crossed the street .")
    fill.press("Enter")
    wait_for_app(page)
    expect(page.get_by_role("textbox", name="Prompt", exact=True)).to_have_count(0)   # no prompt where none is read
    open_tab(page, "Next token")
    prompt = page.get_by_role("textbox", name="Prompt", exact=True)
    for value in ("", "the cat"):
        prompt.fill(value)
        prompt.press("Enter")
        wait_for_app(page)
    expect(page.get_by_text("The prompt is empty")).to_have_count(0, timeout=30_000)
    panel = open_tab(page, "Fill-in (encoder)")
    expect(fill).to_have_value("the [MASK] crossed the street .")
    expect(panel.get_by_role("strong").filter(has_text="[MASK] ·2")).to_be_visible(timeout=30_000)
    shot(page, "generation_fill_kept")
    assert page.locator('[data-testid="stException"]').count() == 0
