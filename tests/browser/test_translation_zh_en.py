"""In a real browser, the Chinese interface on a 1280 × 720 screen: the translation page's Chinese → English
direction translates the tutorial's 我有一只猫 into "i have a cat", draws the cross-attention over the five
characters and the decoder's 5 × 5 causal mask over "[BOS] i have a cat" (§5.1), and names a character outside its
vocabulary in a calm notice instead of translating (the `tabs` fixture fails on console errors and off-loopback
requests)."""
from urllib.parse import quote

from playwright.sync_api import expect

from tests.browser.conftest import shot, wait_for_app

TITLE = "翻译：编码器-解码器的工作过程"
DECODER_TAB = "解码器掩码自注意力"
# each heatmap as Plotly drew it (_fullData: z decoded): x, y without the " ·4" the charts add to keep repeated
# tokens apart, and z
HEATMAPS = """(panel) => {
  const unnumbered = s => String(s).replace(/ ·\\d+$/, '');
  return [...panel.querySelectorAll('.js-plotly-plot')].flatMap(d => d._fullData
    .filter(t => t.type === 'heatmap')
    .map(t => ({x: Array.from(t.x || [], unnumbered), y: Array.from(t.y || [], unnumbered),
                z: Array.from(t.z, r => Array.from(r))})));
}"""


def test_the_chinese_interface_translates_the_tutorials_cat_and_draws_its_5_by_5_mask(tabs, server_url):
    tab = tabs(width=1280, height=720)
    page = tab.page
    page.goto(f"{server_url}/translation?lang=zh&tr_dir={quote('Chinese → English')}")
    wait_for_app(page, timeout=180_000)
    expect(page.locator("h1").first).to_have_text(TITLE, timeout=120_000)
    expect(page.get_by_role("heading", name="i have a cat", exact=True)).to_be_visible(timeout=120_000)
    panel = page.locator('[role="tabpanel"]:visible')
    panel.locator('[data-testid="stPlotlyChart"] .heatmaplayer image').first.wait_for(timeout=120_000)
    cross = panel.evaluate(HEATMAPS)
    assert cross and cross[0]["x"] == ["我", "有", "一", "只", "猫"]
    shot(page, "translation_zh_en_cross")

    page.get_by_role("tab", name=DECODER_TAB).click()
    panel = page.locator('[role="tabpanel"]:visible')
    panel.locator('[data-testid="stPlotlyChart"] .heatmaplayer image').first.wait_for(timeout=120_000)
    expect(panel.locator('[data-testid="stPlotlyChart"]')).to_have_count(2, timeout=120_000)   # the heads, the mask
    maps = panel.evaluate(HEATMAPS)
    tutorial = [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0], [1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]
    assert {"y": ["[BOS]", "i", "have", "a", "cat"], "z": tutorial} in [{"y": m["y"], "z": m["z"]} for m in maps]
    panel.locator('[data-testid="stPlotlyChart"]').first.scroll_into_view_if_needed()
    shot(page, "translation_zh_en_mask")

    box = page.locator(".st-key-tr_zh_text input")
    box.fill("我有一只熊猫")
    box.press("Enter")
    wait_for_app(page)
    expect(page.locator('[data-testid="stAlert"]').filter(has_text="“熊”")).to_be_visible(timeout=60_000)
    expect(page.locator('[data-testid="stPlotlyChart"]')).to_have_count(0, timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "translation_zh_en_unknown_character")
