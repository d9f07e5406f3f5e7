"""In a real browser: the translation page translates, draws cross-attention heatmaps and the alignment
lines, shows training beside inference, and keeps typed markup inert (the `page` fixture fails on
console errors and off-loopback requests)."""
from playwright.sync_api import expect

from tests.browser.conftest import open_app_page, open_tab_with_chart, shot, wait_for_app


def open_page(page, server_url):
    open_app_page(page, server_url, "translation.py")


open_tab = open_tab_with_chart


def test_translation_page_draws_cross_attention_alignment_and_training_vs_inference(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 2000})      # Streamlit scrolls inside: shoot it tall
    open_page(page, server_url)
    expect(page.get_by_text("老师喜欢车站附近的餐厅。", exact=True)).to_be_visible(timeout=60_000)
    page.locator('[data-testid="stPlotlyChart"] .heatmaplayer image').first.wait_for(timeout=60_000)
    shot(page, "translation_cross")

    panel = open_tab(page, "Alignment lines")
    expect(panel.locator('[data-testid="stPlotlyChart"] .scatterlayer .trace')).not_to_have_count(0)
    expect(panel.locator(".textpoint").filter(has_text="restaurant")).to_have_count(1)
    shot(page, "translation_alignment")

    panel = open_tab(page, "Decoder masked self-attention")
    # the causal mask itself, then the four heads under it
    expect(panel.locator('[data-testid="stPlotlyChart"] .heatmaplayer image')).to_have_count(5, timeout=60_000)
    shot(page, "translation_decoder_self")

    panel = open_tab(page, "Training vs inference")
    expect(panel.get_by_text("Inference: one token at a time")).to_be_visible()
    expect(panel.get_by_text("max |difference|")).to_be_visible()
    shot(page, "translation_training_vs_inference")

    box = page.get_by_role("textbox", name="English sentence", exact=True)
    box.fill('<img src=x onerror="window.__xss=1"> the teacher')
    box.press("Enter")
    wait_for_app(page)
    expect(page.get_by_text("Known words")).to_be_visible(timeout=30_000)
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(0, timeout=30_000)
    assert page.evaluate("() => window.__xss === undefined")
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "translation_unknown_words")
