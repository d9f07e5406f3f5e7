"""Pages opened in Streamlit's AppTest from app.py, so the sidebar runs as in the server."""
from pathlib import Path

from streamlit.testing.v1 import AppTest
from streamlit.util import calc_hash

from app_pages import _pages

ROOT = Path(__file__).resolve().parents[1]


def switch_page(at: AppTest, page: str) -> AppTest:
    """Send `at`'s next run to a page: its name ("explorer", "home"), or its view's file ("explorer.py", i.e.
    app_pages/views/explorer.py). The pages are functions (st.Page(render)), and AppTest.switch_page reaches only
    pages that are files; a page's script hash is the hash of its url path (st.Page's own rule), which is what a
    click in the sidebar sends."""
    at._page_hash = calc_hash(_pages.url_path(page.removesuffix(".py")))
    return at


def open_page(page: str | None = None, timeout: float = 60) -> AppTest:
    """AppTest of app.py, switched to `page` (see switch_page) when given, run once."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    if page:
        switch_page(at, page).run()
    return at
