"""In a real browser: the tokenization page shows the shipped BPE's pieces as chips, draws its cost chart,
and re-cuts typed Chinese text into whole characters and bytes; no console errors (the page fixture)."""
from playwright.sync_api import expect

from app_pages._markup import visible
from app_pages.views.tokenization import EXAMPLES
from model.data.bpe import load
from tests.browser.conftest import open_app_page, shot, wait_for_app

CHIPS = '[data-testid="stMarkdown"] div[style*="line-height"]'


def chip_text(page) -> str:
    return page.locator(CHIPS).first.inner_text()


def test_tokenization_page_shows_the_pieces_of_the_example_and_of_typed_chinese(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 4000})        # the screenshot sees every section
    open_app_page(page, server_url, "tokenization.py")
    page.get_by_role("heading", name="Tokenization", exact=True).wait_for()
    enc = load().encode(next(iter(EXAMPLES.values())))
    shown = chip_text(page)
    at = 0
    for piece, i in zip(enc.pieces, enc.ids):                       # every piece with its id, in order
        at = shown.index(f"{visible(piece)} {i}", at)
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=60_000)
    expect(page.get_by_text("Largest |Ωₑ·T − embedding rows|, all tokens")).to_be_visible()
    shot(page, "tokenization")

    box = page.get_by_label("Text", exact=True)
    box.fill("我有一只猫")
    box.press("Control+Enter")
    wait_for_app(page, timeout=120_000)
    expect(page.locator(CHIPS).first).to_contain_text("<0xAB>")
    shown = chip_text(page)
    assert all(c in shown for c in "我有一只") and "\ufffd" not in shown
    shot(page, "tokenization_chinese")
