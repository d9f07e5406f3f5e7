"""The lecturer's own cut of the playlist at 1280 × 720, presenting (light and dark): two views removed at once, one
moved later, an own view added; a reload keeps all of it (the address holds the cut), the export has the cut's
views in its order, and importing that file in a fresh session brings the same cut back."""
import json

import pytest
from playwright.sync_api import expect

from app_pages import _playlist
from app_pages.views import lecture
from tests.browser.conftest import shot, wait_for_app
from tests.browser.test_links import through_sidebar

PLAN = _playlist.prepared(list(lecture.pages()))
N = len(PLAN)
OWN = {"section": "Own view", "title": "My view", "page": "explorer", "params": {"explorer_layer": "L2"},
       "note": "Look at this head."}
# the prepared views 2 and 3 removed, view 1 moved after view 4, the own view at the end
EXPECTED = [PLAN[3].as_json(), PLAN[0].as_json(), *[v.as_json() for v in PLAN[4:]], OWN]


def on_view(page, i: int, n: int) -> None:
    expect(page.get_by_text(f"View {i} of {n} ·")).to_be_visible(timeout=120_000)
    wait_for_app(page, timeout=120_000)


def exported(page, tmp_path) -> dict:
    with page.expect_download(timeout=60_000) as download:
        page.locator(".st-key-lecture_export").get_by_role("button").click()
    path = tmp_path / "playlist.json"
    download.value.save_as(path)
    return json.loads(path.read_text())


@pytest.mark.parametrize("mode", ["Light", "Dark"])
def test_a_cut_of_the_playlist_survives_a_reload_and_round_trips_through_a_file(tabs, server_url, tmp_path, mode):
    page = tabs(width=1280, height=720).page
    through_sidebar(page, server_url, "Lecture", "lecture")
    page.get_by_role("radio", name=mode, exact=True).click()
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden(timeout=60_000)
    on_view(page, 1, N)

    picks = page.locator(".st-key-lecture_remove_picks")
    picks.scroll_into_view_if_needed()
    picks.locator("input").click()
    for k in (2, 3):
        page.get_by_role("option", name=f"{k} · {PLAN[k - 1].title}").click()
    page.keyboard.press("Escape")
    wait_for_app(page, timeout=60_000)
    page.get_by_role("button", name="Remove 2 views").click()
    on_view(page, 1, N - 2)
    expect(page.get_by_text("Removed 2 views.")).to_be_visible()
    page.get_by_role("button", name="Move view 1 later").click()
    on_view(page, 2, N - 2)
    expect(page.get_by_role("heading", name=PLAN[0].title)).to_be_visible()

    page.get_by_role("textbox", name="Link of the view").fill("/explorer?explorer_layer=L2")
    page.get_by_role("textbox", name="Title").fill(OWN["title"])
    page.get_by_role("textbox", name="What to point out").fill(OWN["note"])
    page.get_by_role("button", name="Add to the playlist").click()
    on_view(page, N - 1, N - 1)
    assert "lecture_cut=" in page.url and len(page.url) < 2_000

    page.reload()                                          # a new session: only the address remains
    on_view(page, N - 1, N - 1)
    expect(page.get_by_role("heading", name=OWN["title"])).to_be_visible()
    expect(page.locator('[data-testid="stSidebar"]')).to_be_hidden()    # still presenting
    page.get_by_text("Your cut of the playlist").scroll_into_view_if_needed()
    shot(page, f"lecture_cut_{mode.lower()}_reloaded")
    doc = exported(page, tmp_path)
    assert doc["views"] == EXPECTED
    cut = page.url

    fresh = tabs(width=1280, height=720).page             # a fresh session imports the exported file
    through_sidebar(fresh, server_url, "Lecture", "lecture")
    on_view(fresh, 1, N)
    fresh.locator(".st-key-lecture_import input[type=file]").set_input_files(tmp_path / "playlist.json")
    expect(fresh.get_by_text(f"Imported {N - 1} views from “playlist.json”.")).to_be_visible(timeout=60_000)
    on_view(fresh, 1, N - 1)
    assert fresh.url.split("lecture_cut=")[1].split("&")[0] == cut.split("lecture_cut=")[1].split("&")[0]
