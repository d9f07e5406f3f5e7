"""In a real browser: the positional-encodings page draws its figures in every tab, prints its measured
identities, and shows typed words as text, never as markup."""
from playwright.sync_api import expect

from model import checkpoints
from tests.browser.conftest import open_app_page, shot, wait_for_app

HEATMAP = '[data-testid="stPlotlyChart"] .heatmaplayer image'



def open_page(page, server_url):
    open_app_page(page, server_url, "positional.py")


def open_tab(page, name: str):
    page.get_by_role("tab", name=name).click()
    wait_for_app(page)                                              # only the open tab runs: a rerun
    panel = page.get_by_role("tabpanel", name=name)
    expect(panel).to_be_visible()
    return panel


def test_positional_page_draws_every_tab(page, server_url):
    page.set_viewport_size({"width": 1400, "height": 4400})        # screenshots see a whole tab
    open_page(page, server_url)
    page.get_by_role("heading", name="Positional encodings").wait_for()
    if "coref_encoder" in checkpoints.shipped():
        panel = open_tab(page, "Word order")
        panel.locator(HEATMAP).first.wait_for(timeout=60_000)
        expect(panel.get_by_text("Output, positions off")).to_be_visible()
        expect(panel.get_by_text("who ate whom", exact=False)).to_be_visible()
        shot(page, "positional_order")
    for name, text in (("Waves", "Dimensions to draw as waves"),
                       ("Similarity", "Largest spread among pairs with the same offset"),
                       ("Shift identity", "≤ 1e-9"),
                       ("Learned vs relative", "RoPE: largest spread along a diagonal"),
                       ("Beyond max_len", "A formula has a value at any position")):
        panel = open_tab(page, name)
        if name != "Beyond max_len":
            panel.locator(HEATMAP).first.wait_for(timeout=60_000)
        elif "coref_encoder" in checkpoints.shipped():                  # the long-text check rendered
            max_len = checkpoints.read_meta("coref_encoder")["config"]["max_len"]
            expect(panel.get_by_text(f"only the first {max_len} tokens", exact=False)).to_be_visible(timeout=60_000)
        expect(panel.get_by_text(text, exact=False).first).to_be_visible(timeout=60_000)
        wait_for_app(page)
        shot(page, f"positional_{name.split()[0].lower()}")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_typed_markup_stays_text_in_the_order_demo(page, server_url):
    open_page(page, server_url)
    if "coref_encoder" not in checkpoints.shipped():
        expect(page.get_by_text("No shipped encoder in assets/", exact=False)).to_be_visible()
        return
    box = page.get_by_role("textbox", name="The same words, reordered", exact=True)
    box.fill("<img src=x onerror=alert(1)> woman ate")
    box.press("Enter")
    wait_for_app(page)
    expect(page.get_by_text("same words", exact=False).first).to_be_visible()
    assert page.locator("img[src='x']").count() == 0
