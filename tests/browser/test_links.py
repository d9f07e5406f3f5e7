"""Every view in the URL, in a real browser: set the inputs of the explorer and the coreference page, take the
address (and the "Copy link" button's clipboard), open it in a NEW browser context (a fresh session, no cookies,
no state) and find the same view: the same values in the widgets and the same zoomed head. A stale link opens with
a notice. Screenshots: screenshots/links_*.png (1440 wide, the whole view, and 1280 × 720)."""
import re
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.browser.conftest import shot, wait_for_app

CHART = '[data-testid="stPlotlyChart"]'
EXPLORER_TEXT = "The chef cooked the meal because it was late. Then they ate it quickly."
COREF_TEXT = "The animal didn't cross the street because it was too wide. Then they left."


class Tab:
    """A page in its own browser context; collects console errors, page errors and off-loopback requests. A deep
    link makes Streamlit probe <page>/_stcore/... first (a 404 the browser logs): only those are forgiven."""

    def __init__(self, browser, width=1440, height=1000, clipboard=False):
        self.context = browser.new_context(viewport={"width": width, "height": height},
                                           permissions=["clipboard-read", "clipboard-write"] if clipboard else [])
        self.page = self.context.new_page()
        self.page.set_default_timeout(120_000)                  # the pages run real models on a shared CPU
        self.problems, self.not_found = [], []
        self.page.on("pageerror", lambda e: self.problems.append(f"pageerror: {e}"))
        self.page.on("console", lambda m: self.problems.append(f"console: {m.text}") if m.type == "error" else None)
        self.page.on("response", lambda r: self.not_found.append(r.url) if r.status == 404 else None)
        self.page.route("**/*", self._guard)

    def _guard(self, route):
        url = route.request.url
        if url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")):
            return route.continue_()
        self.problems.append(f"request left loopback: {url}")
        return route.abort()

    def close(self):
        # forgiven: a deep link's probes, and media of a run that a newer run replaced (Streamlit drops the file
        # on the next run; a browser still loading it gets a 404 for an image no longer on the page)
        forgivable = [u for u in self.not_found if re.search(r"/[a-z_]+/_stcore/[a-z-]+$|^/media/", urlsplit(u).path)]
        forgiven = len(forgivable) if len(forgivable) == len(self.not_found) else 0
        problems = [p for p in self.problems if "status of 404" not in p] + \
                   [p for p in self.problems if "status of 404" in p][forgiven:]
        self.context.close()
        assert not problems, "\n".join(problems + self.not_found)


def through_sidebar(page, server_url, title, path):
    page.goto(server_url)
    wait_for_app(page, timeout=180_000)
    link = page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title)
    link.wait_for(timeout=180_000)                                  # a busy server draws the first run late
    link.click()
    page.wait_for_url(f"**/{path}", timeout=30_000)
    wait_for_app(page, timeout=180_000)


def pick(page, label: str, option: str):
    """Choose an option; a rerun still finishing can redraw the open list under the click, so try again."""
    box = page.get_by_role("combobox", name=label, exact=True)
    for attempt in range(4):
        try:
            box.click()
            box.fill(option)
            page.get_by_role("option", name=option, exact=True).click(timeout=20_000)
            expect(box).to_have_value(option, timeout=20_000)
            break
        except (AssertionError, PlaywrightError):
            if attempt == 3:
                raise
            page.keyboard.press("Escape")
            wait_for_app(page, timeout=180_000)
    wait_for_app(page, timeout=180_000)


def type_text(page, value: str, label: str = "Text"):
    box = page.get_by_role("textbox", name=label, exact=True)
    box.fill(value)
    box.press("Control+Enter")
    wait_for_app(page, timeout=180_000)


def params(url: str) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}


def copied_link(page) -> str:
    """Click Copy link and return what it put on the clipboard, after the button said so. A click that lands while
    a rerun replaces the button's frame is lost, as a person's would be: then it is clicked once more."""
    button = page.frame_locator('iframe[title="Copy this page\'s link"]').locator("button")
    for attempt in range(2):
        button.click()
        try:
            expect(button).to_have_text("Link copied ✓", timeout=10_000)
            break
        except AssertionError:
            if attempt:
                raise
    return page.evaluate("navigator.clipboard.readText()")


def widgets(page, *labels) -> dict:
    return {label: page.get_by_role("combobox", name=label, exact=True).input_value() for label in labels}


def test_a_copied_explorer_link_opens_the_same_view_in_a_new_browser(tabs, server_url):
    first = tabs(clipboard=True).page
    through_sidebar(first, server_url, "Attention explorer", "explorer")
    type_text(first, EXPLORER_TEXT)
    pick(first, "Layer", "L2")
    pick(first, "Head", "H1")
    pick(first, "Token", "it (2)")
    expect(first.get_by_role("heading", name="L2 H1")).to_be_visible(timeout=60_000)
    url = first.url
    assert {"explorer_text": EXPLORER_TEXT, "explorer_layer": "L2", "explorer_head": "H1",
            "explorer_token": "it (2)"}.items() <= params(url).items(), url
    assert copied_link(first) == url                    # "Copy link" puts the address, every input in it, on the
    #                                                     clipboard
    before = widgets(first, "Layer", "Head", "Token")

    second = tabs(height=2200).page             # a new context: nothing shared but the link (tall: the whole view)
    second.goto(url)
    wait_for_app(second, timeout=180_000)
    second.locator(f"{CHART} .heatmaplayer image").first.wait_for(timeout=180_000)
    expect(second.get_by_role("textbox", name="Text", exact=True)).to_have_value(EXPLORER_TEXT)
    assert widgets(second, "Layer", "Head", "Token") == before == {"Layer": "L2", "Head": "H1", "Token": "it (2)"}
    expect(second.get_by_role("heading", name="L2 H1")).to_be_visible()
    assert second.locator('[data-testid="stException"]').count() == 0
    shot(second, "links_explorer_1440")

    second.set_viewport_size({"width": 1280, "height": 720})                  # what a projector shows first
    wait_for_app(second, timeout=180_000)
    expect(second.get_by_role("heading", name="L2 H1")).to_be_visible()
    shot(second, "links_explorer_1280x720")


def test_a_copied_coreference_link_opens_the_same_view_in_a_new_browser(tabs, server_url):
    first = tabs(clipboard=True).page
    through_sidebar(first, server_url, "Coreference", "coreference")
    type_text(first, COREF_TEXT)
    pick(first, "Pronoun", "they")
    pick(first, "Head for the arrows", "L0 H1")
    first.get_by_test_id("stCheckbox").get_by_text("Predict first", exact=True).click()   # show, don't ask
    wait_for_app(first, timeout=180_000)
    sentence = first.get_by_text(re.compile(r"^Head L0 H1 points they \(word \d+")).first
    expect(sentence).to_be_visible(timeout=60_000)
    said = sentence.text_content()
    url = copied_link(first)
    assert url == first.url and {"coref_pronoun": "they", "coref_head": "L0 H1",
                                 "predict": "false"}.items() <= params(url).items()
    assert params(url)["coref_text"] == COREF_TEXT and params(url)["coref_example"] == "Your own text"

    second = tabs(height=2200).page
    second.goto(url)
    wait_for_app(second, timeout=180_000)
    expect(second.get_by_role("textbox", name="Text", exact=True)).to_have_value(COREF_TEXT, timeout=120_000)
    assert widgets(second, "Gallery", "Pronoun", "Head for the arrows") == {
        "Gallery": "Your own text", "Pronoun": "they", "Head for the arrows": "L0 H1"}
    expect(second.get_by_text(said, exact=True)).to_be_visible(timeout=60_000)    # the same head, word and weight
    second.wait_for_function(f"() => document.querySelectorAll('{CHART} .main-svg').length >= 2", timeout=120_000)
    shot(second, "links_coreference_1440")

    # another tab and its pick travel too
    second.get_by_role("tab", name="Minimal pairs").click()
    wait_for_app(second, timeout=180_000)
    pick(second, "Minimal pair", "big / small")
    expect(second.get_by_text("in A, it →", exact=False)).to_be_visible(timeout=60_000)
    second.wait_for_url(re.compile(r"coref_pair=big"), timeout=60_000)       # the address follows the rerun
    third = tabs(width=1280, height=720).page
    third.goto(second.url)
    wait_for_app(third, timeout=180_000)
    expect(third.get_by_role("tab", name="Minimal pairs")).to_have_attribute("aria-selected", "true")
    expect(third.get_by_role("combobox", name="Minimal pair", exact=True)).to_have_value("big / small",
                                                                                         timeout=120_000)
    expect(third.get_by_text("in A, it →", exact=False)).to_be_visible(timeout=60_000)
    shot(third, "links_coreference_pairs_1280x720")


def test_a_stale_link_opens_with_a_notice_and_the_defaults(tabs, server_url):
    page = tabs().page
    page.goto(f"{server_url}/explorer?explorer_layer=L9&explorer_token=%3Cb%3Ezebra%3C%2Fb%3E&text_model=gone")
    wait_for_app(page, timeout=180_000)
    expect(page.get_by_text("The link asked for layer “L9”, which is not on this page now; showing “L0”."))\
        .to_be_visible(timeout=60_000)
    expect(page.get_by_text("The link asked for the word “<b>zebra</b>”", exact=False)).to_be_visible()
    expect(page.get_by_text("The link asked for the model “gone”", exact=False)).to_be_visible()
    assert page.locator("b", has_text="zebra").count() == 0                       # shown as text, never as markup
    assert widgets(page, "Layer") == {"Layer": "L0"}
    assert "explorer_layer" not in params(page.url) and "text_model" not in params(page.url)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.locator(f"{CHART} .heatmaplayer image").first.wait_for(timeout=180_000)
    shot(page, "links_stale_explorer")
