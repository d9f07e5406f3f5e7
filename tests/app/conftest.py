"""AppTest helpers: every page test starts from app.py (so the sidebar runs) and switches page."""
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def open_page(page: str | None = None, timeout: float = 60) -> AppTest:
    """AppTest of app.py, switched to app_pages/<page> when given, run once."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    if page:
        at.switch_page(f"app_pages/{page}").run()
    return at


@pytest.fixture
def app_page():
    return open_page
