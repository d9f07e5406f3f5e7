"""Every view in the URL, in a real browser, for the pages beyond the explorer and coreference (tests/browser/
test_links.py copies those links from the page itself): a lecturer's link, as the address bar holds it after
setting the inputs (tests/app/test_url_views_more.py checks each page writes these values into its address),
opened in a NEW browser context (a fresh session, nothing shared but the link) shows the same view: the same
widget values and the same figure title or heading. With ATTENTION_LAB_SCREENSHOTS=1 each view is saved at 1440 wide
and, the window resized, at 1280 × 720: screenshots/links_<page>_1440.png and links_<page>_1280x720.png."""
import re
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SHOOT, shot, wait_for_app
from tests.browser.test_links import params, widgets

TITLE = '[data-testid="stPlotlyChart"] .gtitle'


def figure(page, text: str):
    """The Plotly figure title containing `text`."""
    return page.locator(TITLE).filter(has_text=text).first


def tab_is_open(page, name: str):
    expect(page.get_by_role("tab", name=name, exact=True)).to_have_attribute("aria-selected", "true")


def text_box(page, label: str, value: str):
    expect(page.get_by_role("textbox", name=label, exact=True)).to_have_value(value, timeout=120_000)


def positional(page):
    tab_is_open(page, "Shift identity")
    expect(figure(page, "M_37 (first 16 dimensions)")).to_be_visible(timeout=120_000)
    assert page.get_by_role("spinbutton", name="Offset k", exact=True).input_value() == "37"
    assert widgets(page, "d_model") == {"d_model": "64"}


def masks(page):
    tab_is_open(page, "Receptive field")
    expect(figure(page, "A after 2 layers")).to_be_visible(timeout=120_000)
    page.get_by_role("tab", name="Pattern lab", exact=True).click()     # the lab's inputs live in its tab
    wait_for_app(page, timeout=180_000)
    expect(figure(page, "A: Dilated window")).to_be_visible(timeout=120_000)
    assert page.get_by_role("spinbutton", name="Sequence length N", exact=True).input_value() == "40"
    assert page.get_by_role("combobox", name="Pattern", exact=True).first.input_value() == "Dilated window"


def generation(page):
    tab_is_open(page, "Generate step by step")
    expect(figure(page, "(L3 H2)")).to_be_visible(timeout=120_000)
    text_box(page, "Prompt", "The cat sat on the")
    expect(page.get_by_role("radio", name="top-k sampling")).to_be_checked()
    assert widgets(page, "Layer", "Head") == {"Layer": "L3", "Head": "H2"}


def translation(page):
    tab_is_open(page, "Alignment lines")
    expect(figure(page, "Alignment, L2 H1")).to_be_visible(timeout=120_000)
    text_box(page, "English sentence", "where is the book ?")
    assert widgets(page, "Layer", "Head") == {"Layer": "L2", "Head": "H1"}


def images(page):
    expect(page.get_by_text("of p5's attention", exact=False)).to_be_visible(timeout=120_000)
    expect(page.get_by_role("radio", name="ViT · which shape is red?")).to_be_checked()
    assert widgets(page, "Sample", "Attention from") == {"Sample": "scene_square_1", "Attention from": "p5"}
    expect(page.get_by_text(re.compile("true answer for this sample is square"))).to_be_visible()
    expect(figure(page, "Attention from p5, every head")).to_be_visible(timeout=120_000)


def architecture(page):
    expect(page.get_by_text("translator: encoder-decoder", exact=False)).to_be_visible(timeout=120_000)
    assert widgets(page, "Model") == {"Model": "translator"}


def tokenization(page):
    text_box(page, "Text", "the cat saw the dog")
    assert widgets(page, "Token") == {"Token": "the (2)"}
    expect(page.get_by_text(re.compile(r"^The token at position \d+ \(of \d+")).first).to_contain_text(
        "the", timeout=120_000)


def step_by_step(page):
    text_box(page, "Text", "The cat sat down because it was tired.")
    tab_is_open(page, "Multi-head")
    assert widgets(page, "Layer", "Head", "Query token") == {"Layer": "L0", "Head": "H1", "Query token": "it"}
    page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=120_000)


def why_attention(page):
    tab_is_open(page, "Input size")
    expect(figure(page, "Parameters against N at D = 512")).to_be_visible(timeout=120_000)
    boxes = page.get_by_role("spinbutton")
    assert [boxes.nth(i).input_value() for i in range(2)] == ["12", "512"]


# page -> (its link's query, the check of the view it opens)
LINKS = {
    "positional": ({"pos_tab": "Shift identity", "shift_k": "37", "shift_d": "64"}, positional),
    "masks": ({"masks_n": "40", "masks_A_pattern": "Dilated window", "masks_tab": "Receptive field",
               "predict": "false"}, masks),
    "generation": ({"gen_prompt": "The cat sat on the", "gen_tab": "Generate step by step",
                    "gen_strategy": "top-k sampling", "gen_head": "H2"}, generation),
    "translation": ({"tr_text": "where is the book ?", "tr_head": "H1", "tr_tab": "Alignment lines"}, translation),
    "images": ({"img_model": "ViT · which shape is red?", "img_scene": "scene_square_1",
                "img_query_vit_scenes": "p5"}, images),
    "architecture": ({"arch_model": "translator"}, architecture),
    "tokenization": ({"tok_text": "the cat saw the dog", "tok_token": "the (2)"}, tokenization),
    "why_attention": ({"why_words": "12", "why_dims": "512"}, why_attention),
    "step_by_step": ({"steps_text": "The cat sat down because it was tired.", "steps_head": "H1",
                      "steps_token": "it", "steps_tab": "Multi-head"}, step_by_step),
}


def test_every_pages_link_opens_the_same_view_in_a_new_browser(tabs, server_url):
    for name, (query, check) in LINKS.items():
        page = tabs(width=1440, height=1000).page
        page.goto(f"{server_url}/{name}?{urlencode(query)}")
        wait_for_app(page, timeout=180_000)
        assert query.items() <= params(page.url).items(), (name, page.url)     # the address still holds the view
        check(page)
        assert page.locator('[data-testid="stException"]').count() == 0, name
        if SHOOT:
            shot(page, f"links_{name}_1440")
            page.set_viewport_size({"width": 1280, "height": 720})
            wait_for_app(page, timeout=180_000)
            shot(page, f"links_{name}_1280x720")


@pytest.mark.parametrize("path,query,notice", [
    ("masks", "masks_A_pattern=%3Cb%3EHexagonal%3C%2Fb%3E", "The link asked for the pattern “<b>Hexagonal</b>”"),
    ("generation", "gen_tab=Generate+step+by+step&gen_head=H9", "The link asked for head “H9”"),
    ("images", "img_model=GPT-9", "The link asked for the model “GPT-9”"),
], ids=["masks", "generation", "images"])
def test_a_stale_link_opens_with_a_notice_and_markup_as_text(tabs, server_url, path, query, notice):
    page = tabs().page
    page.goto(f"{server_url}/{path}?{query}")
    wait_for_app(page, timeout=180_000)
    expect(page.get_by_text(notice, exact=False)).to_be_visible(timeout=120_000)
    assert page.locator("b", has_text="Hexagonal").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, f"links_stale_{path}")
