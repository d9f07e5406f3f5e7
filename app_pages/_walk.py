"""Giving the lecture in one tab. "Open this view" on the lecture page runs the view's page in this same tab
(st.switch_page with the view's parameters), in the session's language and presentation mode; a thin bar over the
page then steps through the playlist: previous and next (← and →, Streamlit's button shortcuts), the view's number
and title, and the way back to the lecture list. Each view opens on exactly its own inputs, as a new tab would: the
values this session gave that page's inputs before are forgotten first (_url.forget_inputs).

While presenting, the bar shares one line with the presentation switch, so the page's main figure keeps its place
on a 1280 × 720 screen."""
import streamlit as st

from app_pages import _lecture, _pages, _present, _url
from app_pages._markup import md
from i18n import _
from runtime import page_inputs

WALK = "_lecture_walk"          # session state: the playlist's step (1-based) this tab shows, while the bar is up
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
    params = _lecture.opened_params(view)
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


def walking(url_path: str) -> int | None:
    """The step whose view this page shows while the bar is up; None otherwise (the bar goes once another page
    runs, the lecture list included)."""
    step = st.session_state.get(WALK)
    if step is None:
        return None
    views = _lecture.playlist()
    if not 1 <= step <= len(views) or views[step - 1].page != url_path:
        del st.session_state[WALK]
        return None
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
