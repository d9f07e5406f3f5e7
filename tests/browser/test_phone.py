"""On a phone (390 × 844): every formula stays inside the screen or scrolls inside its own box (the page never
scrolls sideways), and the masks page's prediction draws no mask before it is answered (each would give its
answer away)."""
import pytest

from harness.server import wait_for_app

PHONE = {"width": 390, "height": 844}
FORMULAS = ["why_attention", "step_by_step", "similarity", "finetune?ft_tab=Binary"]


@pytest.fixture
def phone(browser, server_url):
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def open_view(path: str):
        page.goto(f"{server_url}/{path}")
        wait_for_app(page, timeout=180_000)
        page.locator("h1").first.wait_for(timeout=120_000)
        wait_for_app(page, timeout=180_000)
        return page

    yield open_view
    ctx.close()
    assert not errors, errors


@pytest.mark.parametrize("path", FORMULAS)
def test_formulas_fit_or_scroll_in_their_own_box(phone, path):
    page = phone(path)
    formulas = page.locator('[data-testid="stLatex"], .katex-display')
    formulas.first.wait_for(timeout=120_000)
    boxes = page.evaluate("""() => [...document.querySelectorAll('[data-testid="stLatex"], .katex-display')].map(e => {
        const r = e.getBoundingClientRect();
        return {right: r.right, wide: e.scrollWidth > e.clientWidth + 1, scrolls: getComputedStyle(e).overflowX};
    })""")
    assert boxes
    for box in boxes:
        assert box["right"] <= PHONE["width"] + 1, box
        assert not box["wide"] or box["scrolls"] in ("auto", "scroll"), box
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]


def test_the_masks_prediction_draws_no_mask_before_it_is_answered(phone):
    page = phone("masks")
    page.get_by_text("Which masks let token", exact=False).first.wait_for(timeout=120_000)
    page.get_by_text("Patterns A and B are drawn once you have predicted.").wait_for(timeout=60_000)
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 0


def box_js(name: str) -> str:
    return f"const {name} = e => {{ if (!e) return null; const r = e.getBoundingClientRect(); " \
           f"return {{left: r.left, top: r.top, right: r.right, bottom: r.bottom}}; }};"


CHARTS = "() => { " + box_js("box") + """
  return [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].map(c => ({
    modebar: box(c.querySelector('.modebar')), title: box(c.querySelector('.gtitle')),
    svg: box(c.querySelector('.main-svg')), cell: box(c.closest('[data-testid="stElementContainer"]'))}));
}"""


def overlap(a: dict, b: dict) -> bool:
    return a["left"] < b["right"] and b["left"] < a["right"] and a["top"] < b["bottom"] and b["top"] < a["bottom"]


def test_plotlys_modebar_covers_no_figure_title(phone):
    page = phone("step_by_step")
    page.locator('[data-testid="stPlotlyChart"] .gtitle').first.wait_for(timeout=120_000)
    page.locator('[data-testid="stPlotlyChart"] .modebar').first.wait_for(state="attached", timeout=120_000)
    charts = [c for c in page.evaluate(CHARTS) if c["modebar"] and c["title"]]
    assert charts, "no chart with a title and a modebar on the page"
    for c in charts:
        assert not overlap(c["modebar"], c["title"]), c
        assert c["modebar"]["right"] <= PHONE["width"] and c["svg"]["bottom"] <= c["cell"]["bottom"] + 1, c


ARCHITECTURE = "(chart) => { " + box_js("box") + """
  return {chart: box(chart), texts: [...chart.querySelectorAll('.annotation-text')].filter(t => t.textContent.trim())
    .map(t => ({text: t.textContent, ...box(t)}))};
}"""


def test_the_architecture_legend_and_labels_fit_the_width(phone):
    page = phone("architecture?arch_model=general_gpt")
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.locator(".annotation-text").first.wait_for(timeout=120_000)
    legend = page.get_by_text("How to read it", exact=False).first
    legend.wait_for(timeout=60_000)
    shown = legend.evaluate("(e) => { const r = (e.closest('[data-testid=\"stMarkdownContainer\"]') || e)"
                            ".getBoundingClientRect(); return {left: r.left, right: r.right}; }")
    assert 0 <= shown["left"] and shown["right"] <= PHONE["width"], shown
    drawn = chart.evaluate(ARCHITECTURE)
    wide = [t["text"] for t in drawn["texts"] if t["left"] < drawn["chart"]["left"] - 1
            or t["right"] > min(PHONE["width"], drawn["chart"]["right"]) + 1]
    assert not wide, wide                                   # each block's words inside the figure and the screen
