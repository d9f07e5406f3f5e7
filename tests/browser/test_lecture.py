"""The lecture playlist in a real browser: → and ← step through the views (Streamlit's button shortcuts) and the place
follows in the address. (The view's link itself is checked in tests/app/test_lecture.py.)"""

from playwright.sync_api import expect

from app_pages import _playlist
from app_pages.views import lecture
from tests.browser.conftest import open_app_page, shot, wait_for_app


def test_arrow_keys_step_the_playlist(page, server_url):
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
