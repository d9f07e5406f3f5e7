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
