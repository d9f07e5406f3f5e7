"""A real `streamlit run` server on loopback and a headless Debian chromium page that fails on
console errors, page errors, and any request that leaves loopback. Screenshots go to screenshots/."""
import os

import pytest

from harness.server import ARGS, CHROMIUM, ROOT, launch, streamlit_server, wait_for_app  # noqa: F401

SHOTS = ROOT / "screenshots"
SHOOT = os.environ.get("ATTENTION_LAB_SCREENSHOTS") == "1"


def pytest_collection_modifyitems(items):
    """Under pytest-xdist (`--dist loadgroup`, set in pyproject.toml) every browser test goes to one worker, so
    one server serves them all while the other worker runs the unit and AppTest tests (two browser chains at once
    overload two cores: Chromium's renderers are the largest cost)."""
    for item in items:
        if item.path.is_relative_to(ROOT / "tests" / "browser"):
            item.add_marker(pytest.mark.xdist_group("browser"))


@pytest.fixture(scope="session")
def server_log(tmp_path_factory):
    """The file the test server writes its stderr to (model loads are logged there)."""
    return tmp_path_factory.mktemp("server") / "streamlit.log"


@pytest.fixture(scope="session")
def server_url(server_log):
    try:
        with streamlit_server(server_log) as url:
            yield url
    except RuntimeError as e:
        pytest.fail(str(e))


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


class PageProblems(list):
    """Console errors, page errors and off-loopback requests seen by one page."""


@pytest.fixture
def page(browser):
    """A fresh page (own context). After the test, asserts no console/page errors, no off-loopback request."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    problems = PageProblems()
    pg.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    pg.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)

    def guard(route):
        u = route.request.url
        if u.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")):
            return route.continue_()
        problems.append(f"request left loopback: {u}")
        return route.abort()

    pg.route("**/*", guard)
    pg.problems = problems
    yield pg
    ctx.close()
    assert not problems, "\n".join(problems)


def shot(page, name: str):
    """With ATTENTION_LAB_SCREENSHOTS=1, save a full-page screenshot to screenshots/<name>.png and return its path
    (for a person to look at; no test reads them, and drawing them costs the suite a minute)."""
    if not SHOOT:
        return None
    SHOTS.mkdir(exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def open_app_page(page, server_url: str, file: str, timeout: float = 120_000):
    """Open the app at its root, then follow the sidebar link to the page drawn by app_pages/views/<file>, as a
    person would (a deep link makes Streamlit probe <path>/_stcore/health first, which logs a 404)."""
    from app_pages import _pages
    name = file.removesuffix(".py")
    page.goto(server_url)
    wait_for_app(page, timeout=timeout)
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=_pages.BY_NAME[name].title).click()
    page.wait_for_url(f"**/{name}", timeout=30_000)
    wait_for_app(page, timeout=timeout)


def open_tab_with_chart(page, name: str):
    """Click the tab `name` and wait until its panel has drawn a Plotly chart; returns the panel."""
    page.get_by_role("tab", name=name).click()
    panel = page.locator('[role="tabpanel"]:visible')
    panel.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for(timeout=60_000)
    return panel


@pytest.fixture
def tabs(browser):
    """new(width=, height=, clipboard=) -> a page in its own browser context (tests/browser/test_links.Tab), checked
    for errors when the test ends."""
    from tests.browser.test_links import Tab
    opened = []

    def new(**kw) -> Tab:
        opened.append(Tab(browser, **kw))
        return opened[-1]
    yield new
    for t in opened:
        t.close()
