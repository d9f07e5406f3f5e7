"""The lecture playlist in a real browser: → and ← step through the views (Streamlit's button shortcuts), the place
follows in the address, and O opens the current view in a new tab on its own address."""
import re

from playwright.sync_api import expect

from app_pages import _playlist
from app_pages.views import lecture
from tests.browser.conftest import open_app_page, shot, wait_for_app
from tests.browser.test_links import params


def test_arrow_keys_step_the_playlist_and_o_opens_the_view(page, server_url):
    plan = _playlist.prepared(list(lecture.pages()))
    n = len(plan)
    open_app_page(page, server_url, "lecture.py")
    expect(page.get_by_text(f"View 1 of {n}")).to_be_visible()
    expect(page.get_by_role("button", name="Next")).to_be_enabled()
    wait_for_app(page)
    for key, step in (("ArrowRight", 2), ("ArrowRight", 3), ("ArrowLeft", 2)):
        page.keyboard.press(key)
        expect(page.get_by_text(f"View {step} of {n}")).to_be_visible(timeout=90_000)
        page.wait_for_url(f"**/lecture?lecture_step={step}", timeout=90_000)
    wait_for_app(page)
    expect(page.get_by_role("heading", name=plan[1].title)).to_be_visible()
    shot(page, "lecture_step_2")
    with page.context.expect_page() as opened:
        page.keyboard.press("o")
    view = opened.value
    view.wait_for_url(re.compile(f"/{plan[1].page}\\?"), wait_until="commit", timeout=90_000)
    assert dict(plan[1].params).items() <= params(view.url).items(), view.url    # its own inputs, maybe more
    view.close()
