"""Dark presentation mode on a 1280 × 720 screen, read in a real browser: the coreference arc's highlighted words
keep a contrast ratio of at least 4.5 : 1 against their boxes (WCAG 2.x AA for text), and the controls are drawn
for a dark page: help icons visible on it, the heads picker a dark field whose tags carry no dark patches."""
import re

import pytest

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
