"""Giving the lecture in one tab. "Open this view" on the lecture page runs the view's page in this same tab
(st.switch_page with the view's parameters), in the session's language and presentation mode; a thin bar over the
page then steps through the playlist: previous and next (← and →, Streamlit's button shortcuts), the view's number
and title, and the way back to the lecture list. Each view opens on exactly its own inputs, as a new tab would: the
values this session gave that page's inputs before are forgotten first (_url.forget_inputs). The view's address
holds the step (`lecture_walk=N`) and the lecturer's cut of the playlist (`lecture_cut=…`, when there is one), so a
reload, which starts a new session, puts the bar back on the same step.

While presenting, the bar shares one line with the presentation switch, so the page's main figure keeps its place
on a 1280 × 720 screen."""
import re

import streamlit as st

from app_pages import _lecture, _pages, _playlist, _playlist_link, _present, _url
from app_pages._markup import md
from i18n import _
from runtime import page_inputs

WALK = "_lecture_walk"          # session state: the playlist's step (1-based) this tab shows, while the bar is up
STEP_PARAM = "lecture_walk"     # the address's parameter holding that step, for a reload
TITLE_MAX = 80                  # characters of a view's title on the bar, before CSS cuts it to the line
ONE_LINE = """<style>
.st-key-walk_where [data-testid="stMarkdownContainer"] { margin: 0; }
.st-key-walk_where p { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; margin: 0; }
</style>"""
# presenting: as compact as the presentation switch beside it (_present's CSS)
THIN = """<style>
.st-key-walk_bar button { min-height: 0; height: auto; padding: 0.1rem 0.7rem; }
.st-key-walk_bar button [data-testid="stIconMaterial"] { font-size: 1rem; line-height: 1; }
.st-key-walk_bar [data-testid="stMarkdownContainer"], .st-key-walk_bar p, .st-key-walk_bar kbd {
  font-size: 0.8rem; line-height: 1.3; }
</style>"""


def go(step: int) -> None:
    """Open the playlist's view `step` (1-based) in this tab, the bar over it. Ends this script run."""
    view = _lecture.playlist()[step - 1]
    params = _lecture.opened_params(view) + walk_params(step)
    _url.forget_inputs(view.page, (k for k, _v in params))
    st.session_state[WALK] = step
    if st.session_state.get(_lecture.STEP) != step:    # (on the lecture list itself it is already)
        st.session_state[_lecture.STEP] = step      # the lecture list opens on it on the way back
    _switch(view.page, params)


def _switch(page: str, params) -> None:
    page_inputs.release({k for k, _v in params})
    st.switch_page(_pages.page(page), query_params=list(params))


def back(step: int) -> None:
    """Back to the lecture list, on the view `step`. Ends this script run."""
    st.session_state.pop(WALK, None)
    st.session_state[_lecture.STEP] = step
    _switch("lecture", _lecture.lecture_params())


def walk_params(step: int) -> tuple[tuple[str, str], ...]:
    """What a walked view's address adds to its own parameters: the step and, for a lecturer's cut that fits a
    link, the cut."""
    cut = _lecture.cut_text()
    return ((STEP_PARAM, str(step)),) + (((_lecture.CUT, cut),) if cut and len(cut) <= _playlist_link.TEXT_MAX
                                         else ())


def _restored() -> int | None:
    """A session's first run on a walked view's address (a reload, a bookmark): the step it names, the cut it
    holds made the playlist (the prepared plan when none, or one that cannot be read); None without a step."""
    raw = st.query_params.get(STEP_PARAM)
    if raw is None or not re.fullmatch(r"[0-9]{1,4}", str(raw)):      # ASCII digits, a playlist's length at most
        return None
    cut = st.query_params.get(_lecture.CUT)
    if cut is not None and _lecture.LIST not in st.session_state:
        try:
            _lecture.keep(_playlist_link.loads(cut, _lecture.plan(), list(_lecture.pages())))
        except _playlist.PlaylistError:
            pass                                       # the prepared plan; the step is checked against it below
    return int(raw)


def walking(url_path: str) -> int | None:
    """The step whose view this page shows while the bar is up, kept in the session or read back from the address
    after a reload; None otherwise (the bar goes once another page runs, the lecture list included, and its step
    leaves the address)."""
    step = st.session_state.get(WALK)
    if step is None and (step := _restored()) is None:
        return None
    views = _lecture.playlist()
    if not 1 <= step <= len(views) or views[step - 1].page != url_path:
        st.session_state.pop(WALK, None)
        for key in (STEP_PARAM,) if url_path == "lecture" else (STEP_PARAM, _lecture.CUT):   # the list keeps its cut
            if key in st.query_params:
                del st.query_params[key]
        return None
    st.session_state[WALK] = step
    return step


def _short(text: str) -> str:
    return text if len(text) <= TITLE_MAX else text[:TITLE_MAX - 1].rstrip() + "…"


def bar(cells, step: int) -> None:
    """The bar's controls in four cells: previous, where in the playlist, next, back to the list. The arrows are
    icons only (their shortcut ← or → beside them), so the bar stays one short line."""
    views = _lecture.playlist()
    n = len(views)
    prev, where, nxt, home = cells
    if prev.button("", icon=":material/arrow_back:", shortcut="Left", disabled=step == 1, width="stretch",
                   key="walk_prev", help=_("The playlist's previous view (←)")):
        go(step - 1)
    with where.container(key="walk_where"):
        st.markdown(_("**{i}/{n}** · {title}").format(i=step, n=n, title=md(_short(_lecture.shown(
            views[step - 1].title)))))
    if nxt.button("", icon=":material/arrow_forward:", shortcut="Right", disabled=step == n, width="stretch",
                  key="walk_next", help=_("The playlist's next view (→)")):
        go(step + 1)
    if home.button(_("Lecture"), icon=":material/format_list_numbered:", width="stretch", key="walk_list",
                   help=_("Back to the lecture's list, on this view")):
        back(step)


def top(url_path: str) -> None:
    """app.py, before the page runs: the presentation switch (on the page while presenting, in the sidebar
    otherwise) and, while the lecture walks through this page's view, the bar over the page; presenting, both on
    one line."""
    step = walking(url_path)
    presenting = _present.mode() is not None
    if step is None:
        with st.container() if presenting else st.sidebar:   # presenting, the sidebar is hidden: the way back
            _present.switch()                                 # tops the page
        return
    with st.container(key="walk_bar"):
        st.html(ONE_LINE + THIN if presenting else ONE_LINE)
        if presenting:
            switch, *cells = st.columns([2.6, 0.8, 6.0, 0.8, 2.2], vertical_alignment="center", gap="small")
            with switch:
                _present.switch()
        else:
            with st.sidebar:
                _present.switch()
            cells = st.columns([0.8, 9.2, 0.8, 2.0], vertical_alignment="center", gap="small")
        bar(cells, step)
