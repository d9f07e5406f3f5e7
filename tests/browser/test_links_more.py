"""Every view in the URL, in a real browser, for the positional, masks, generation, translation, image and
architecture pages: set a few inputs, take the address, open it in a NEW browser context (a fresh session, nothing
shared but the link) and find the same view: the same widget values and the same figure title or heading. Each
page opened from its link is saved at 1440 wide and, the window resized, at 1280 × 720:
screenshots/links_<page>_1440.png and links_<page>_1280x720.png (Streamlit scrolls inside its own container, so a
shot is what the window shows)."""
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import shot, wait_for_app
from tests.browser.test_links import Tab, params, pick, through_sidebar, widgets

TITLE = '[data-testid="stPlotlyChart"] .gtitle'


@pytest.fixture
def tabs(browser):
    """new(width=, height=) -> a page in its own browser context, checked for errors when the test ends."""
    opened = []

    def new(**kw) -> Tab:
        opened.append(Tab(browser, **kw))
        return opened[-1]
    yield new
    for t in opened:
        t.close()


def figure(page, text: str):
    """The Plotly figure title containing `text`."""
    return page.locator(TITLE).filter(has_text=text).first


def number(page, label: str, value: int):
    box = page.get_by_role("spinbutton", name=label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    wait_for_app(page, timeout=180_000)


def open_tab(page, name: str):
    page.get_by_role("tab", name=name, exact=True).click()
    wait_for_app(page, timeout=180_000)


def tab_is_open(page, name: str):
    expect(page.get_by_role("tab", name=name, exact=True)).to_have_attribute("aria-selected", "true")


def same_view_in_new_browsers(tabs, url: str, name: str, check, then=None, key: str | None = None):
    """Open `url` in a new browser context, run `check(page)` on it, save screenshots of the view as opened (its
    top at 1440 wide, the figure titled `key` scrolled into view, and the window resized to 1280 × 720), then run
    `then(page)` (checks that need another tab)."""
    page = tabs(width=1440, height=1000).page
    page.goto(url)
    wait_for_app(page, timeout=180_000)
    check(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, f"links_{name}_1440")
    if key:
        figure(page, key).scroll_into_view_if_needed()
        shot(page, f"links_{name}_1440_figure")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.evaluate("window.scrollTo(0, 0)")
    wait_for_app(page, timeout=180_000)
    shot(page, f"links_{name}_1280x720")
    if then:
        then(page)
    return page


def test_a_positional_link_opens_the_same_tab_offset_and_width(tabs, server_url):
    first = tabs().page
    through_sidebar(first, server_url, "Positional encodings", "positional")
    open_tab(first, "Shift identity")
    number(first, "Offset k", 37)
    pick(first, "d_model", "64")
    expect(figure(first, "M_37 (first 16 dimensions)")).to_be_visible(timeout=60_000)
    url = first.url
    assert {"pos_tab": "Shift identity", "shift_k": "37", "shift_d": "64"}.items() <= params(url).items(), url

    def check(page):
        tab_is_open(page, "Shift identity")
        expect(figure(page, "M_37 (first 16 dimensions)")).to_be_visible(timeout=120_000)
        assert page.get_by_role("spinbutton", name="Offset k", exact=True).input_value() == "37"
        assert widgets(page, "d_model") == {"d_model": "64"}
    same_view_in_new_browsers(tabs, url, "positional", check, key="M_37")


def test_a_masks_link_opens_the_same_patterns_and_tab(tabs, server_url):
    first = tabs().page
    through_sidebar(first, server_url, "Masks & sparse attention", "masks")
    number(first, "Sequence length N", 40)
    box = first.get_by_role("combobox", name="Pattern", exact=True).first                # pattern A
    box.click()
    box.fill("Dilated window")
    first.get_by_role("option", name="Dilated window", exact=True).click()
    wait_for_app(first, timeout=180_000)
    expect(figure(first, "A: Dilated window")).to_be_visible(timeout=60_000)
    open_tab(first, "Receptive field")
    expect(figure(first, "A after 2 layers")).to_be_visible(timeout=60_000)
    url = first.url
    assert {"masks_n": "40", "masks_A_pattern": "Dilated window", "masks_tab": "Receptive field"}.items() \
        <= params(url).items(), url

    def check(page):
        tab_is_open(page, "Receptive field")
        expect(figure(page, "A after 2 layers")).to_be_visible(timeout=120_000)

    def lab(page):
        open_tab(page, "Pattern lab")                                  # the lab's inputs live in its (hidden) tab
        expect(figure(page, "A: Dilated window")).to_be_visible(timeout=120_000)
        assert page.get_by_role("spinbutton", name="Sequence length N", exact=True).input_value() == "40"
        assert page.get_by_role("combobox", name="Pattern", exact=True).first.input_value() == "Dilated window"
    same_view_in_new_browsers(tabs, url, "masks", check, lab, key="A after 2 layers")


def test_a_generation_link_opens_the_same_prompt_strategy_and_head(tabs, server_url):
    first = tabs().page
    through_sidebar(first, server_url, "Decoder & generation", "generation")
    prompt = "The cat sat on the"
    box = first.get_by_role("textbox", name="Prompt", exact=True)
    box.fill(prompt)
    box.press("Enter")
    wait_for_app(first, timeout=180_000)
    open_tab(first, "Generate step by step")
    first.get_by_text("top-k sampling", exact=True).click()
    wait_for_app(first, timeout=180_000)
    pick(first, "Head", "H2")
    expect(figure(first, "(L3 H2)")).to_be_visible(timeout=120_000)
    url = first.url
    assert {"gen_prompt": prompt, "gen_tab": "Generate step by step", "gen_strategy": "top-k sampling",
            "gen_head": "H2"}.items() <= params(url).items(), url

    def check(page):
        tab_is_open(page, "Generate step by step")
        expect(figure(page, "(L3 H2)")).to_be_visible(timeout=120_000)
        assert page.get_by_role("textbox", name="Prompt", exact=True).input_value() == prompt
        expect(page.get_by_role("radio", name="top-k sampling")).to_be_checked()
        assert widgets(page, "Layer", "Head") == {"Layer": "L3", "Head": "H2"}
    same_view_in_new_browsers(tabs, url, "generation", check, key="(L3 H2)")


def test_a_translation_link_opens_the_same_sentence_head_and_tab(tabs, server_url):
    first = tabs().page
    through_sidebar(first, server_url, "Translation", "translation")
    sentence = "where is the book ?"
    box = first.get_by_role("textbox", name="English sentence", exact=True)
    box.fill(sentence)
    box.press("Enter")
    wait_for_app(first, timeout=180_000)
    pick(first, "Head", "H1")
    open_tab(first, "Alignment lines")
    expect(figure(first, "Alignment, L2 H1")).to_be_visible(timeout=120_000)
    output = first.locator('[data-testid="stMarkdown"] h2').first.text_content()
    url = first.url
    assert {"tr_text": sentence, "tr_head": "H1", "tr_tab": "Alignment lines"}.items() <= params(url).items(), url

    def check(page):
        tab_is_open(page, "Alignment lines")
        expect(figure(page, "Alignment, L2 H1")).to_be_visible(timeout=120_000)
        assert page.get_by_role("textbox", name="English sentence", exact=True).input_value() == sentence
        assert widgets(page, "Layer", "Head") == {"Layer": "L2", "Head": "H1"}
        expect(page.locator('[data-testid="stMarkdown"] h2').first).to_have_text(output)
    same_view_in_new_browsers(tabs, url, "translation", check, key="Alignment, L2 H1")


def test_an_image_link_opens_the_same_model_sample_and_query(tabs, server_url):
    first = tabs().page
    through_sidebar(first, server_url, "Image patches", "images")
    first.get_by_text("ViT · which shape is red?", exact=True).click()
    wait_for_app(first, timeout=180_000)
    expect(first.get_by_role("combobox", name="Sample", exact=True)).to_have_value("scene_circle_0", timeout=120_000)
    pick(first, "Sample", "scene_square_1")
    pick(first, "Attention from", "p5")
    expect(first.get_by_text("of p5's attention", exact=False)).to_be_visible(timeout=120_000)
    first.wait_for_url(re.compile(r"img_query_vit_scenes=p5"), timeout=30_000)      # the address follows the rerun
    url = first.url
    assert {"img_model": "ViT · which shape is red?", "img_scene": "scene_square_1",
            "img_query_vit_scenes": "p5"}.items() <= params(url).items(), url

    def check(page):
        expect(page.get_by_text("of p5's attention", exact=False)).to_be_visible(timeout=120_000)
        expect(page.get_by_role("radio", name="ViT · which shape is red?")).to_be_checked()
        assert widgets(page, "Sample", "Attention from") == {"Sample": "scene_square_1", "Attention from": "p5"}
        expect(page.get_by_text(re.compile("true answer for this sample is square"))).to_be_visible()
        expect(figure(page, "Attention from p5, every head")).to_be_visible(timeout=120_000)
    same_view_in_new_browsers(tabs, url, "images", check, key="L3 H0")


def test_an_architecture_link_opens_the_same_model(tabs, server_url):
    first = tabs().page
    through_sidebar(first, server_url, "Architecture", "architecture")
    pick(first, "Model", "translator")
    expect(first.get_by_text("translator: encoder-decoder", exact=False)).to_be_visible(timeout=120_000)
    url = first.url
    assert params(url).get("arch_model") == "translator", url

    def check(page):
        expect(page.get_by_text("translator: encoder-decoder", exact=False)).to_be_visible(timeout=120_000)
        assert widgets(page, "Model") == {"Model": "translator"}
        page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=120_000)
    same_view_in_new_browsers(tabs, url, "architecture", check)


def test_a_tokenization_link_opens_the_same_text_and_token(tabs, server_url):
    first = tabs().page
    through_sidebar(first, server_url, "Tokenization", "tokenization")
    text = "the cat saw the dog"
    box = first.get_by_role("textbox", name="Text", exact=True)
    box.fill(text)
    box.press("Control+Enter")
    wait_for_app(first, timeout=180_000)
    pick(first, "Token", "the (2)")
    said = first.get_by_text(re.compile(r"^Token \d+ of \d+:")).first
    expect(said).to_contain_text("the", timeout=60_000)
    caption = said.text_content()
    url = first.url
    assert {"tok_text": text, "tok_token": "the (2)"}.items() <= params(url).items(), url

    def check(page):
        expect(page.get_by_role("textbox", name="Text", exact=True)).to_have_value(text, timeout=120_000)
        assert widgets(page, "Token") == {"Token": "the (2)"}
        expect(page.get_by_text(caption, exact=True)).to_be_visible(timeout=120_000)   # the same token and id
    same_view_in_new_browsers(tabs, url, "tokenization", check)


def test_a_step_by_step_link_opens_the_same_token_head_and_tab(tabs, server_url):
    first = tabs().page
    through_sidebar(first, server_url, "Step by step", "step_by_step")
    text = "The cat sat down because it was tired."
    box = first.get_by_role("textbox", name="Text", exact=True)
    box.fill(text)
    box.press("Enter")
    wait_for_app(first, timeout=180_000)
    pick(first, "Head", "H1")
    pick(first, "Query token", "it")
    open_tab(first, "Multi-head")
    url = first.url
    assert {"steps_text": text, "steps_head": "H1", "steps_token": "it", "steps_tab": "Multi-head"}.items() \
        <= params(url).items(), url

    def check(page):
        expect(page.get_by_role("textbox", name="Text", exact=True)).to_have_value(text, timeout=120_000)
        tab_is_open(page, "Multi-head")
        assert widgets(page, "Layer", "Head", "Query token") == {"Layer": "L0", "Head": "H1", "Query token": "it"}
        page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=120_000)
    same_view_in_new_browsers(tabs, url, "step_by_step", check)


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
