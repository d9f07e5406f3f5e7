"""The lecture page (AppTest): every prepared view opens its page, in a fresh session as its new tab does, without an
exception, without a stale-link notice and with every parameter kept; the plan follows the course texts' order;
the playlist steps forward and back and its place is in the URL; a view added from a link, the export and the
import round-trip; bad links and bad files get their messages; in Chinese a view reads translated and opens its
page in Chinese. Runs on the shipped models (the views name them)."""
import json
import re
from unittest import mock
from urllib.parse import parse_qsl

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

import i18n
from app_pages import _playlist
from app_pages.views import lecture, tokenization
from tests.app.conftest import infos as notices
from tests.app.conftest import open_link as open_file
from tests.app.conftest import switch_page

PAGES = list(lecture.pages())
PLAN = _playlist.prepared(PAGES)
N = len(PLAN)


def said(at, kind: str) -> list[str]:
    """The page's messages of one kind, with md()'s backslash escapes taken out."""
    return [e.value.replace("\\", "") for e in getattr(at, kind)]


def shown_view(at) -> str:
    return next(c.value for c in at.caption if c.value.startswith("View "))


def open_button(at):
    return at.get("link_button")[0].proto


def button(at, label: str):
    return next(b for b in at.button if b.label == label)


def open_link(page: str, params: dict):
    """A fresh session on the page named by its url path (\"lecture\", a view's page), as a new tab opens it."""
    return open_file(f"{page}.py", **params)


# ---- the prepared views ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("view", PLAN, ids=[f"{i + 1}-{v.page}" for i, v in enumerate(PLAN)])
def test_every_prepared_view_opens_its_page_with_every_input_kept(view):
    """No exception, no "The link asked for …" notice, and each parameter still in the URL after the run: Streamlit
    drops a value no widget accepts, and the plan names only values that differ from the page's defaults."""
    at = open_link(view.page, view.query())
    assert not [n for n in notices(at) if n.startswith("The link asked")], notices(at)
    for key, value in view.query().items():
        kept = at.query_params.get_all(key) if isinstance(value, list) else at.query_params.get(key)
        assert kept == value, (key, value, kept)


def test_the_plan_follows_the_textbook_then_the_tutorial_then_the_lecture():
    kinds = [v.section.split()[0] for v in PLAN]
    assert kinds == sorted(kinds, key=["教材", "Tutorial", "Lecture"].index)
    book = [tuple(map(int, v.section.split()[1].split("."))) for v in PLAN if v.section.startswith("教材")]
    assert book == sorted(book)
    assert {s[:2] for s in book} == {(12, n) for n in range(1, 11)}           # 12.1 … 12.10, each with a view
    parts = [float(v.section.split()[-1]) for v in PLAN if v.section.startswith("Tutorial")]
    assert parts == sorted(parts) and {int(p) for p in parts} == {1, 2, 3, 4, 5}
    steps = [v.section for v in PLAN if v.section.startswith("Lecture step")]
    assert steps == [f"Lecture step {n}" for n in range(1, 5)]
    assert all(v.note.endswith(".") and len(v.note) < 300 for v in PLAN)    # one sentence each


def test_in_chinese_a_prepared_view_reads_translated_and_opens_its_page_in_chinese():
    """lang=zh: the view's title, note and section come from the plan's catalogue; its link carries lang=zh and the
    example's title as the Chinese page shows it, which that page (a fresh session, as the new tab) takes without a
    stale-link notice; a bad file's message is in Chinese too."""
    zh = i18n.catalogue("zh").gettext
    example = "A name no vocabulary holds"
    k, view = next((k, v) for k, v in enumerate(PLAN) if v.query() == {"tok_example": example})
    at = open_link("lecture", {"lang": "zh", "lecture_step": str(k + 1)})
    assert at.subheader[0].value.replace("\\", "") == zh(view.title) != view.title
    assert zh(view.note) in [m.value.replace("\\", "") for m in at.markdown] and zh(view.note) != view.note
    assert any(c.value.replace("\\", "").endswith(f" · {zh(view.section)}") for c in at.caption)
    page, query = open_button(at).url.split("?")
    params = parse_qsl(query)
    assert page == "tokenization" and params == [("tok_example", zh(example)), ("lang", "zh")]
    assert zh(example) != example
    tab = open_link(page, dict(params))
    stale = zh("The link asked for {what} “{asked}”, which is not on this page now; showing “{shown}”.").split("{")[0]
    assert not [n for n in notices(tab) if n.startswith(stale)], notices(tab)
    assert tab.selectbox(key="tok_example").value == example
    assert tab.text_area(key="tok_text").value == tokenization.EXAMPLES[example]
    assert tab.title[0].value == zh("Tokenization") != "Tokenization"

    at.file_uploader(key="lecture_import").set_value(("bad.json", b"{not json", "application/json")).run()
    why = zh("The file is not valid JSON (line {line}, column {column}: {why}).").format(
        line=1, column=2, why="Expecting property name enclosed in double quotes")
    assert said(at, "error") == [zh("“{file}” was not imported.").format(file="bad.json") + " " + why]


# ---- the playlist ------------------------------------------------------------------------------------------------
def test_the_playlist_steps_forward_and_back_and_keeps_its_place_in_the_url():
    at = open_link("lecture", {})
    assert shown_view(at).startswith(f"View 1 of {N}") and button(at, "Previous").disabled
    assert open_button(at).url == PLAN[0].url() and at.button(key="lecture_open").proto.shortcut == "o"
    button(at, "Next").click().run()
    button(at, "Next").click().run()
    assert shown_view(at).startswith(f"View 3 of {N}") and at.query_params["lecture_step"] == "3"
    assert at.subheader[0].value.replace("\\", "") == PLAN[2].title and open_button(at).url == PLAN[2].url()
    button(at, "Previous").click().run()
    assert shown_view(at).startswith(f"View 2 of {N}") and at.query_params["lecture_step"] == "2"
    assert {b.proto.shortcut for b in at.button if b.label in ("Previous", "Next")} == {"left", "right"}
    jump = at.selectbox(key="lecture_jump")
    assert jump.format_func(N - 1) == f"{N} · {PLAN[-1].section} · {PLAN[-1].title}"
    jump.set_value(N - 1).run()
    assert shown_view(at).startswith(f"View {N} of {N}") and at.query_params["lecture_step"] == str(N)
    assert at.selectbox(key="lecture_jump").value is None                  # ready for the next jump


def test_a_link_opens_the_lecture_on_its_view_and_a_stale_one_on_the_first():
    at = open_link("lecture", {"lecture_step": str(N)})
    assert shown_view(at).startswith(f"View {N} of {N}") and button(at, "Next").disabled
    at = open_link("lecture", {"lecture_step": "999"})
    assert "The link asked for view “999”, which is not on this page now; showing “1”." in notices(at)
    assert shown_view(at).startswith(f"View 1 of {N}")


# ---- own views, export, import ------------------------------------------------------------------------------------
def add(at, link: str, title: str, note: str = "") -> AppTest:
    at.text_input(key="lecture_link").input(link)
    at.text_input(key="lecture_title").input(title)
    at.text_area(key="lecture_note").input(note)
    return button(at, "Add to the playlist").click().run()


def exported(at) -> bytes:
    """The bytes the Export button serves, caught where Streamlit stores a download."""
    saved = []
    real = MediaFileManager.add

    def spy(self, data, mimetype, coordinates, file_name=None, is_for_static_download=False):
        saved.append((file_name, data))
        return real(self, data, mimetype, coordinates, file_name, is_for_static_download)

    with mock.patch.object(MediaFileManager, "add", spy):
        at.run()
    return next(d for f, d in saved if f == "lecture_playlist.json")


def test_a_view_added_from_a_link_round_trips_through_export_and_import():
    at = open_link("lecture", {})
    link = "http://localhost:8501/explorer?explorer_layer=L2&explorer_token=it+%282%29&embed=true"
    add(at, link, "<b>My</b> view", "Look at *this* head.")
    assert f"Added “<b>My</b> view” as view {N + 1}." in said(at, "success")
    assert shown_view(at).startswith(f"View {N + 1} of {N + 1} · Own view")
    assert at.subheader[0].value == "\\<b\\>My\\</b\\> view"                 # markup shown as text
    assert open_button(at).url == "explorer?explorer_layer=L2&explorer_token=it+%282%29"   # embed= dropped
    assert at.text_input(key="lecture_link").value == ""                   # the form is ready for the next one
    data = exported(at)
    doc = json.loads(data)
    assert doc["format"] == _playlist.FORMAT and len(doc["views"]) == N + 1
    assert doc["views"][-1] == {"section": "Own view", "title": "<b>My</b> view", "page": "explorer",
                                "params": {"explorer_layer": "L2", "explorer_token": "it (2)"},
                                "note": "Look at *this* head."}

    fresh = open_link("lecture", {})
    fresh.file_uploader(key="lecture_import").set_value(("mine.json", data, "application/json")).run()
    assert f"Imported {N + 1} views from “mine.json”." in said(fresh, "success")
    assert shown_view(fresh).startswith(f"View 1 of {N + 1}")
    assert exported(fresh) == data                                         # the same playlist, byte for byte
    button(fresh, "Remove view 1").click().run()
    assert shown_view(fresh).startswith(f"View 1 of {N}") and f"Removed “{PLAN[0].title}”." in said(fresh, "success")
    button(fresh, "Back to the prepared plan").click().run()
    assert shown_view(fresh).startswith(f"View 1 of {N}") and "Back to the prepared plan." in said(fresh, "success")


def test_the_view_just_left_fills_the_form():
    at = open_link("masks", {"masks_tab": "Cost", "masks_cost_w": "64"})
    switch_page(at, "lecture").run()
    left = "The page you just left: **Masks & sparse attention** · /masks?masks\\_tab=Cost&masks\\_cost\\_w=64"
    assert left in [c.value for c in at.caption]
    button(at, "Use that view").click().run()
    assert at.text_input(key="lecture_link").value == "masks?masks_tab=Cost&masks_cost_w=64"
    button(at, "Add to the playlist").click().run()
    assert f"Added “Masks & sparse attention” as view {N + 1}." in said(at, "success")
    assert open_button(at).url == "masks?masks_tab=Cost&masks_cost_w=64"


@pytest.mark.parametrize("link,message", [
    ("", "Paste a link first: open the view, press Copy link in the sidebar, paste it here."),
    ("javascript:alert(1)", "Only links to this app (http or https) can be added, not “javascript:”."),
    ("data:text/html,<script>alert(1)</script>", "Only links to this app (http or https) can be added, not “data:”."),
    ("http://localhost:8501/", "The link opens the home page, which has no inputs to show; open a page, set it up, "
                               "then copy its link."),
    ("http://localhost:8501/secrets?x=1", f"“secrets” is not a page of this app; its pages are: {', '.join(PAGES)}."),
    ("/explorer?<b>=1", "The link's parameter “<b>” is not one this app's pages use."),
], ids=["empty", "javascript", "data", "home", "unknown-page", "odd-parameter"])
def test_a_bad_link_gets_its_message_and_adds_nothing(link, message):
    at = open_link("lecture", {})
    add(at, link, "A title")
    assert said(at, "error") == [message]
    assert shown_view(at).startswith(f"View 1 of {N}")


def test_a_view_needs_a_title():
    at = add(open_link("lecture", {}), "/explorer?explorer_layer=L2", "  ")
    assert said(at, "error") == ["The view: “title” is empty."]


def playlist_file(views) -> bytes:
    return json.dumps({"format": _playlist.FORMAT, "version": 1, "views": views}).encode()


GOOD = {"section": "Own view", "title": "t", "page": "masks", "params": {"masks_tab": "Cost"}, "note": ""}


@pytest.mark.parametrize("data,message", [
    (b"{not json", "is not valid JSON (line 1, column 2: Expecting property name enclosed in double quotes)."),
    (b"\xff\xfe", "The file is not text (UTF-8); export a playlist from this page and import that."),
    (b'[{"title": "x"}]', "The file is JSON but not a playlist: it needs “format”: “attention-lab-lecture” and a "
                          "list “views”, as an exported playlist has."),
    (playlist_file([]), "The playlist in the file is empty."),
    (playlist_file([GOOD] * 201), "The file has 201 views; a playlist holds at most 200."),
    (playlist_file([GOOD, {**GOOD, "page": "admin"}]), "View 2: “page” must be one of this app's pages: "
                                                       + ", ".join(PAGES) + "."),
    (playlist_file([{**GOOD, "params": {"masks_tab": 3}}]), "View 1: the parameter “masks_tab” must be text or a "
                                                            "list of texts."),
    (playlist_file([{**GOOD, "title": "x" * 500}]), "View 1: “title” has 500 characters; at most 120."),
    (b" " * 70_000, "The file has 70,000 bytes; a playlist file has at most 64,000."),
], ids=["not-json", "not-utf8", "wrong-shape", "empty", "too-many", "unknown-page", "number-value", "long-title",
        "too-large"])
def test_a_bad_playlist_file_gets_its_message_and_changes_nothing(data, message):
    at = open_link("lecture", {})
    at.file_uploader(key="lecture_import").set_value(("bad.json", data, "application/json")).run()
    assert not at.exception
    (error,) = said(at, "error")
    assert error.startswith("“bad.json” was not imported. ") and error.endswith(message), error
    assert shown_view(at).startswith(f"View 1 of {N}")


def test_a_link_to_another_site_is_refused_when_the_apps_address_is_known():
    with pytest.raises(_playlist.PlaylistError, match=re.escape("The link points to another site (“evil.example”); "
                                                                "paste a link of this app (“localhost:8501”).")):
        _playlist.parse_link("https://evil.example/explorer", PAGES, host="localhost:8501")
    assert _playlist.parse_link("http://LOCALHOST:8501/app/masks?masks_n=8", PAGES, host="localhost:8501") == \
        ("masks", (("masks_n", "8"),))                                      # served under a base path
    assert _playlist.parse_link("localhost:8501/masks?masks_n=8", PAGES, host="localhost:8501") == \
        ("masks", (("masks_n", "8"),))                                      # pasted without http://
    with pytest.raises(_playlist.PlaylistError, match="The link has 2,001 characters; a view's link has at most "
                                                      "2,000\\."):
        _playlist.parse_link("/explorer?x=" + "a" * 1989, PAGES)
