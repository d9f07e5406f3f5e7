"""In a real browser: the home page loads, the sidebar reaches every page, nothing errors, nothing
leaves loopback (the `page` fixture asserts the last two)."""
from urllib.parse import urlparse

from app_pages import _pages
from tests.browser.conftest import shot, wait_for_app


def test_home_and_navigation_reach_every_page(page, server_url):
    page.goto(server_url)
    wait_for_app(page)
    page.get_by_role("heading", name="Attention Lab").wait_for()
    main = page.locator('[data-testid="stMain"]')
    for _, title, _, _ in _pages.PAGES[1:]:            # every page is linked from the home page
        main.get_by_role("link", name=title).wait_for(timeout=30_000)
    shot(page, "home")
    for name, title, _, _ in _pages.PAGES:
        if name == _pages.HOME:
            continue
        page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
        # a page may put its own parameters after the path
        page.wait_for_url(lambda url, name=name: urlparse(url).path.rstrip("/").endswith(f"/{name}"), timeout=30_000)
        wait_for_app(page, timeout=120_000)
        assert page.locator('[data-testid="stException"]').count() == 0, f"{title} shows an exception"
        shot(page, f"nav_{name}")
