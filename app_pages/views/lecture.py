"""The lecture page: the course texts' sections in order (the textbook's 12.1–12.10, the tutorial's parts, the
lecture's steps), each with a prepared view of the app and a sentence of what to point out. A playlist steps
through them with ← and → (Streamlit's own button shortcuts); the current view is in the URL (?lecture_step=5).
Open this view (O) runs the view's page in this tab, presenting as now, with the playlist as a bar over it
(app_pages/_walk.py); a new tab is offered too. The lecturer's own cut (views added, moved, removed) is edited in
app_pages/views/lecture_cut.py and kept in the URL (?lecture_cut=…), and the playlist is exported or imported as a
small JSON file. In Chinese the prepared views' sections, titles and notes are shown translated (domain
"assets.lecture_plan"), and a view opens in Chinese too (lang=zh and the labels as the Chinese page shows them).
The class panel (app_pages/views/lecture_class.py) starts a class whose students answer on their phones; a view
opened from here hosts it too."""
import re
from urllib.parse import unquote

import streamlit as st

from app_pages import _lecture, _present, _url, _walk
from app_pages._lecture import pages, playlist, shown, view_link
from app_pages._markup import md
from app_pages.views import lecture_class, lecture_cut
from i18n import _

STEP = _lecture.STEP
NON_ASCII = re.compile(r"(?:%[89A-Fa-f][0-9A-Fa-f])+")     # a percent-encoded run of UTF-8 bytes ≥ 0x80


def _jump() -> None:
    pick = st.session_state.get("lecture_jump")
    if pick is not None:
        lecture_cut.select(pick + 1)
        st.session_state["lecture_jump"] = None          # ready for the next jump, even to the same view


def current(view, i: int, n: int) -> None:
    """The current view: its section, title and note, and the buttons that open it, here (the playlist's bar over
    it) or in a new tab, presenting as this tab does."""
    title, icon = pages()[view.page]
    with st.container(border=True):
        st.caption(_("View {i} of {n} · {section}").format(i=i, n=n, section=md(shown(view.section))))
        st.subheader(md(shown(view.title)), anchor=False)
        if view.note:
            st.markdown(md(shown(view.note)))
        a, b = st.columns([3, 1], vertical_alignment="center")
        if a.button(_("Open this view: {page}").format(page=_(title)), icon=icon, type="primary", shortcut="O",
                    width="stretch", key="lecture_open",
                    help=_("Opens here (shortcut O), presenting as now; a bar over the view steps through the "
                           "playlist with ← and → and leads back to this list.")):
            _walk.go(i)
        # a new tab is a new session: the page opens on exactly the view's inputs, whatever this session set
        # earlier on it, and this tab keeps the playlist and its place
        b.link_button(_("New tab"), _lecture.new_tab_link(view), icon=":material/open_in_new:", width="stretch",
                      help=_("Opens the view in a new tab instead, presenting as now; close it to come back here."))
        readable = NON_ASCII.sub(lambda m: unquote(m.group()), view_link(view))    # 分词, not %E5%88%86%E8%AF%8D
        st.caption(_("Address: /{url}").format(url=md(readable)))


def render():
    st.title(_("Lecture"))
    _lecture.address()
    if not _present.mode():                            # on the projector the view and the class's answers come first
        st.markdown(_("The course texts in order, the textbook's sections 12.1–12.10, the tutorial's parts and the "
                      "lecture's steps, each with a view of the app and what to point out in it. **←** and **→** "
                      "step through the playlist; **Open this view** (or **O**) opens the page with its inputs set "
                      "in this tab, presenting as now, and a bar over it steps on with **←** and **→** and leads "
                      "back here."))
    lecture_class.panel()
    views = playlist()
    n = len(views)
    if st.session_state.get(STEP, 1) > n:             # a shorter playlist was imported or a view removed
        lecture_cut.select(n)
    _url.stale_number(STEP, 1, n, _("view"), 1)
    left, middle, right = st.columns([1, 2, 1], vertical_alignment="bottom")
    i = int(middle.number_input(_("View (1–{n})").format(n=n), 1, n, step=1, key=STEP, bind=_url.BIND,
                                persist_state=_url.KEEP))
    left.button(_("Previous"), icon=":material/arrow_back:", shortcut="Left", on_click=lecture_cut.select,
                args=(i - 1,), disabled=i == 1, width="stretch", key="lecture_prev")
    right.button(_("Next"), icon=":material/arrow_forward:", icon_position="right", shortcut="Right",
                 on_click=lecture_cut.select, args=(i + 1,), disabled=i == n, width="stretch", key="lecture_next")
    current(views[i - 1], i, n)

    st.selectbox(_("Jump to a view ({n} in the playlist)").format(n=n), range(n), index=None, key="lecture_jump",
                 format_func=lambda k: f"{k + 1} · {shown(views[k].section)} · {shown(views[k].title)}",
                 on_change=_jump, placeholder=_("Type to search the sections and titles"))
    lecture_cut.editor(views, i)
    lecture_cut.own_views(views)
