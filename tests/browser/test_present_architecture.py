"""The Architecture page's diagram while presenting on a 1280 × 720 screen, light and dark: its text is at least
as large as other presented figure text (14 px: the house type before presentation's ×1.6), the whole diagram still
lies within the first screen, every word keeps a contrast of 4.5 : 1 with the block or page under it, and the
arrows between blocks stand out from the page (3 : 1)."""
import pytest

from tests.browser.test_present_dark import PAPER, SHAPE_AA, TEXT_AA, ratio
from tests.browser.test_present_labels import MAIN, MODES, SCREEN, TO_TOP, present

LEAST_PX = 14
READ_TEXT = """(chart) => {
  const sizes = [...chart.querySelectorAll('.annotation-text')].filter(t => t.textContent.trim())
    .map(t => parseFloat(getComputedStyle(t).fontSize) * (t.closest('svg').getScreenCTM()?.a || 1));
  return {sizes, bottom: chart.getBoundingClientRect().bottom};
}"""


@pytest.fixture
def screen(tabs):
    return tabs(**SCREEN)


@pytest.mark.parametrize("model", ["general_gpt", "translator"])           # the lecture's views 13 and 32
@pytest.mark.parametrize("mode", MODES)
def test_the_presented_diagram_text_is_at_least_14px_and_on_the_first_screen(screen, server_url, model, mode):
    present(screen, server_url, f"architecture?arch_model={model}", mode)
    chart = screen.page.locator(f'{MAIN} [data-testid="stPlotlyChart"]').first
    chart.locator(".annotation-text").first.wait_for(timeout=120_000)
    screen.page.evaluate(TO_TOP)
    m = chart.evaluate(READ_TEXT)
    assert len(m["sizes"]) >= 10 and min(m["sizes"]) >= LEAST_PX, sorted(set(round(s, 1) for s in m["sizes"]))
    assert m["bottom"] <= SCREEN["height"]


INKS = """(chart) => {
  const shapes = [...chart.querySelectorAll('.shapelayer path')].map(p => ({box: p.getBoundingClientRect(),
    fill: getComputedStyle(p).fill, shown: getComputedStyle(p).fill !== 'none'
      && parseFloat(getComputedStyle(p).fillOpacity) > 0}));
  const under = (x, y) => (shapes.filter(s => s.shown && s.box.left <= x && x <= s.box.right && s.box.top <= y
    && y <= s.box.bottom).pop() || {fill: null}).fill;
  const words = [...chart.querySelectorAll('.annotation-text, .annotation-text tspan')].filter(t =>
    [...t.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())).map(t => {
      const r = t.getBoundingClientRect();
      return {text: t.textContent, ink: getComputedStyle(t).fill, under: under((r.left + r.right) / 2,
                                                                              (r.top + r.bottom) / 2)};
    });
  const arrows = [...chart.querySelectorAll('.annotation-arrow-g path')].filter(p =>
    getComputedStyle(p).stroke !== 'none').map(p => {
    const r = p.getBoundingClientRect();
    return {stroke: getComputedStyle(p).stroke, under: under((r.left + r.right) / 2, (r.top + r.bottom) / 2)};
  });
  return {words, arrows};
}"""


@pytest.mark.parametrize("mode", MODES)
def test_the_presented_diagrams_words_and_arrows_stand_out(screen, server_url, mode):
    present(screen, server_url, "architecture?arch_model=translator", mode)
    chart = screen.page.locator(f'{MAIN} [data-testid="stPlotlyChart"]').first
    chart.locator(".annotation-text").first.wait_for(timeout=120_000)
    page = PAPER if mode == "Dark" else "rgb(255, 255, 255)"
    m = chart.evaluate(INKS)
    faint = [(w["text"], round(ratio(w["ink"], w["under"] or page), 2)) for w in m["words"]
             if ratio(w["ink"], w["under"] or page) < TEXT_AA]
    assert len(m["words"]) >= 20 and not faint, faint
    on_page = [ratio(a["stroke"], page) for a in m["arrows"] if a["under"] is None]
    assert on_page and min(on_page) >= SHAPE_AA, on_page
