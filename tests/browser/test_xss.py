"""XSS in a real browser: every box where user text is typed and then rendered gets an <img onerror>
payload and a <script> payload; `window.__xss` must stay undefined in the page and in every frame."""
import pytest

from harness.hostile_inputs import XSS_IMG, XSS_SCRIPT
from tests.browser.conftest import open_app_page, shot, wait_for_app

# (page url path, accessible name of the box, whether it is a multi-line text area)
BOXES = [
    ("explorer", "Text", True),
    ("coreference", "Text", True),
    ("generation", "Prompt", False),
    ("translation", "English sentence", False),
    ("step_by_step", "Text", False),
    ("positional", "Sentence", False),
]


def _xss_fired(page) -> list[str]:
    hits = []
    for frame in page.frames:
        try:
            if frame.evaluate("() => typeof window.__xss !== 'undefined'"):
                hits.append(frame.url)
        except Exception as e:                                  # a detached frame cannot run script
            if "detached" not in str(e).lower():
                raise
    return hits


@pytest.mark.parametrize("path,label,multiline", BOXES, ids=[b[0] for b in BOXES])
def test_typed_markup_never_runs(page, server_url, path, label, multiline):
    open_app_page(page, server_url, f"{path}.py")
    box = page.get_by_role("textbox", name=label, exact=True).first
    box.wait_for(timeout=120_000)
    for payload in (XSS_IMG, f"The restaurant {XSS_SCRIPT} refused it"):
        box.fill(payload)
        box.press("Control+Enter" if multiline else "Enter")
        page.wait_for_timeout(400)
        wait_for_app(page, timeout=120_000)
        page.wait_for_timeout(300)                               # let images fail and handlers run
        assert _xss_fired(page) == [], f"payload {payload!r} ran script on {path}"
        assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, f"xss_{path}")
