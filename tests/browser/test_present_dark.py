"""Dark presentation mode on a 1280 × 720 screen, read in a real browser: the coreference arc's highlighted words
keep a contrast ratio of at least 4.5 : 1 against their boxes (WCAG 2.x AA for text), and the controls are drawn
for a dark page: help icons visible on it, the heads picker a dark field whose tags carry no dark patches, the tab
bar's scroll fade into the page's own dark colour; and the head view's faintest lines still stand out from it."""
import io
import re

import numpy as np
import pytest
from PIL import Image

from tests.browser.conftest import wait_for_app
from tests.browser.test_present_labels import MAIN, SCREEN, TO_TOP, present

PAPER = "rgb(14, 17, 23)"        # the dark page, #0e1117
TEXT_AA = 4.5                    # WCAG 2.x 1.4.3, text
SHAPE_AA = 3.0                   # WCAG 2.x 1.4.11, the parts of a control


def luminance(css: str) -> float:
    """WCAG 2.x relative luminance of a CSS "rgb(…)"/"rgba(…)" colour."""
    r, g, b = (float(v) / 255 for v in re.findall(r"[\d.]+", css)[:3])
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def ratio(a: str, b: str) -> float:
    """WCAG contrast ratio of two CSS colours."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def alpha(css: str) -> float:
    """The opacity of a CSS colour (1 for rgb(…))."""
    values = re.findall(r"[\d.]+", css)
    return float(values[3]) if len(values) > 3 else 1.0


BOXED_WORDS = """(chart) => [...chart.querySelectorAll('.annotation')].map(a => {
  const text = a.querySelector('text.annotation-text'), box = a.querySelector('rect.bg');
  return {word: text.textContent, ink: getComputedStyle(text).fill, box: getComputedStyle(box).fill,
          boxed: parseFloat(getComputedStyle(box).fillOpacity) > 0 && !getComputedStyle(box).fill.startsWith('rgba')};
})"""


@pytest.fixture
def dark(tabs):
    return tabs(**SCREEN)


def test_the_coreference_arcs_highlighted_words_are_legible_in_dark(dark, server_url):
    present(dark, server_url, "coreference?predict=false", "Dark")
    chart = dark.page.locator('.st-key-coref_arrows [data-testid="stPlotlyChart"]')
    chart.locator(".annotation").first.wait_for(timeout=120_000)
    words = chart.evaluate(BOXED_WORDS)
    boxed = {w["word"]: ratio(w["ink"], w["box"]) for w in words if w["boxed"]}
    assert {"restaurant", "it"} <= set(boxed), boxed                       # the answer and the pronoun, in boxes
    assert min(boxed.values()) >= TEXT_AA, boxed
    plain = {w["word"]: ratio(w["ink"], PAPER) for w in words if not w["boxed"]}
    assert min(plain.values()) >= TEXT_AA, plain                           # the other words, on the page


ICONS = """() => [...document.querySelectorAll('[data-testid="stTooltipHoverTarget"]')].filter(t => {
  const r = t.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).map(t => ({
  button: getComputedStyle(t.querySelector('button') || t).backgroundColor,
  stroke: getComputedStyle(t.querySelector('svg circle, svg path')).stroke}))"""
HEADS = """(box) => ({field: getComputedStyle(box.querySelector('div[role="group"]')).backgroundColor,
  removers: [...box.querySelectorAll('[data-testid="stMultiSelectTagsContainer"] button')]
    .map(b => getComputedStyle(b).backgroundColor),
  tags: [...box.querySelectorAll('[data-testid="stMultiSelectTagsContainer"] span[role="group"] > span')]
    .map(s => ({ink: getComputedStyle(s).color, tag: getComputedStyle(s).backgroundColor}))})"""


def test_help_icons_and_the_heads_picker_are_drawn_for_a_dark_page(dark, server_url):
    present(dark, server_url, "explorer", "Dark")
    dark.page.locator(f"{MAIN} .heatmaplayer").first.wait_for(timeout=120_000)      # the page is drawn
    heads = dark.page.locator(".st-key-explorer_heads")
    heads.locator('div[role="group"]').first.wait_for(timeout=120_000)
    wait_for_app(dark.page)
    dark.page.evaluate(TO_TOP)
    icons = dark.page.evaluate(ICONS)
    assert icons, "no help icon on the explorer"
    for icon in icons:
        assert alpha(icon["button"]) == 0, icon                              # no square behind the "?"
        assert ratio(icon["stroke"], PAPER) >= SHAPE_AA, icon
    picker = heads.evaluate(HEADS)
    assert luminance(picker["field"]) < 0.05, picker                          # a dark field, not a white box
    assert picker["removers"] and all(alpha(c) == 0 for c in picker["removers"]), picker   # no patches behind ×
    assert picker["tags"] and all(ratio(t["ink"], t["tag"]) >= TEXT_AA for t in picker["tags"]), picker


SCROLL_FADE = """() => [...document.querySelectorAll('[data-testid^="stTabsScroll"]')].map(b => ({
  fade: getComputedStyle(b).backgroundImage, icon: getComputedStyle(b).color}))"""
LINES = """(chart) => [...chart.querySelectorAll('.scatterlayer g.trace')].map(g => {
  const line = g.querySelector('path.js-line');
  return line && {stroke: getComputedStyle(line).stroke, opacity: parseFloat(getComputedStyle(g).opacity)};
}).filter(Boolean)"""


def seen(stroke: str, opacity: float) -> str:
    """A line's colour as drawn on the dark page: its stroke blended with the paper at its opacity."""
    line, paper = (re.findall(r"[\d.]+", c)[:3] for c in (stroke, PAPER))
    return "rgb({})".format(", ".join(f"{opacity * float(a) + (1 - opacity) * float(b):.1f}" for a, b in
                                      zip(line, paper)))


def test_the_tab_bars_scroll_fade_and_the_head_views_lines_suit_a_dark_page(dark, server_url):
    present(dark, server_url, "explorer", "Dark")                # its tabs overflow a 1280-px bar while presenting
    chart = dark.page.locator('.st-key-explorer_lines [data-testid="stPlotlyChart"]')
    chart.locator(".scatterlayer").first.wait_for(timeout=120_000)
    wait_for_app(dark.page)
    fades = dark.page.evaluate(SCROLL_FADE)
    assert fades, "the explorer's tabs fit their bar: no scroll fade to measure"
    for fade in fades:
        solid = re.findall(r"rgba?\([^)]*\)", fade["fade"])[-1]               # the colour the fade ends in
        assert alpha(solid) == 1 and ratio(solid, PAPER) < 1.1, fade        # the page's dark, not white
        assert ratio(fade["icon"], PAPER) >= SHAPE_AA and alpha(fade["icon"]) > 0.9, fade
    drawn = [ratio(seen(t["stroke"], t["opacity"]), PAPER) for t in chart.evaluate(LINES)]
    assert len(drawn) >= 4, drawn
    assert min(drawn) >= 2.0 and max(drawn) >= TEXT_AA, sorted(round(r, 2) for r in drawn)


CHIPS = """() => [...document.querySelectorAll('[data-testid="stMarkdown"] span[style*="background"]')]
  .filter(c => c.textContent.trim()).map(c => ({text: c.firstChild.textContent, ink: getComputedStyle(c).color,
                                                chip: getComputedStyle(c).backgroundColor}))"""


def test_the_tokenization_pieces_are_legible_on_their_light_chips_in_dark(dark, server_url):
    present(dark, server_url, "tokenization", "Dark")                          # the lecture's views 11, 12 and 33
    dark.page.locator('[data-testid="stMarkdown"] span[style*="background"]').first.wait_for(timeout=120_000)
    chips = dark.page.evaluate(CHIPS)
    assert len(chips) >= 5, chips
    faint = [(c["text"], round(ratio(c["ink"], c["chip"]), 2)) for c in chips if ratio(c["ink"], c["chip"]) < TEXT_AA]
    assert not faint, faint


def test_a_table_is_dark_on_a_dark_page(dark, server_url):
    """A table is a canvas Streamlit draws in its light theme: presenting dark, it reads light on dark too (the
    lecture's view 41, the why-attention page's parameter table), measured on the pixels the browser shows."""
    present(dark, server_url, "why_attention?why_tab=Parameters+vs+N", "Dark")
    table = dark.page.locator('[data-testid="stDataFrame"]').first
    table.wait_for(timeout=120_000)
    table.scroll_into_view_if_needed()
    grey = Image.open(io.BytesIO(table.screenshot())).convert("L")
    pixels = np.asarray(grey, dtype=float) / 255
    assert pixels.mean() < 0.35, pixels.mean()                    # mostly dark: the background
    assert (pixels > 0.6).mean() > 0.005                           # light text on it
