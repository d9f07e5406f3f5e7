"""The lecture page: the course texts' sections in order (the textbook's 12.1–12.10, the tutorial's parts, the
lecture's steps), each with a prepared view of the app and a sentence of what to point out. A playlist steps
through them with ← and → (Streamlit's own button shortcuts); the current view is in the URL (?lecture_step=5).
A lecturer adds views from links copied on any page, and exports or imports the playlist as a small JSON file.
In Chinese the prepared views' sections, titles and notes are shown translated (domain "assets.lecture_plan"), and
a view opens in Chinese too (its link carries lang=zh and the labels as the Chinese page shows them). The class
panel (app_pages/views/lecture_class.py) starts a class whose students answer on their phones; while it runs, a
view opened from here hosts it too."""
import re
from dataclasses import replace
from urllib.parse import unquote, urlencode, urlsplit

import streamlit as st

import i18n
from app_pages import _class, _language, _pages, _playlist, _present, _url
from app_pages._cache_sizes import ONE
from app_pages._markup import md
from app_pages.views import lecture_class
from i18n import _, ngettext

STEP = "lecture_step"           # the current view, 1-based, bound to the URL
LIST = "lecture_playlist"       # session state: the playlist when it is not the prepared plan
MESSAGE = "_lecture_message"    # session state: (where, kind, text) said once, next to the control it is about
SKIP = {_pages.HOME, "lecture", "classroom"}
NON_ASCII = re.compile(r"(?:%[89A-Fa-f][0-9A-Fa-f])+")     # a percent-encoded run of UTF-8 bytes ≥ 0x80
TEXTBOOK_SECTION = re.compile(r"教材\s*(\d+(?:\.\d+)*)")   # the plan's "教材 12.6.2": a section of the textbook


def pages() -> dict[str, tuple[str, str]]:
    """url path -> (title, icon) of each page a view may open."""
    return {name: (title, icon) for name, title, icon, _blurb in _pages.PAGES if name not in SKIP}


@st.cache_data(max_entries=ONE)
def prepared_plan(names: tuple[str, ...]) -> list[_playlist.View]:
    return _playlist.prepared(names)


def playlist() -> list[_playlist.View]:
    return st.session_state.get(LIST) or prepared_plan(tuple(pages()))


def shown(text: str) -> str:
    """A view's section, title or note in the session's language: the prepared plan's texts have translations
    (a lecturer's own text has none and shows as typed). The plan names the textbook's sections as the Chinese
    textbook does ("教材 12.6.2"); in English that reads "textbook 12.6.2"."""
    if text and (section := TEXTBOOK_SECTION.fullmatch(text.strip())):
        return _("textbook {section}").format(section=section[1])
    return _(text) if text else text


def view_link(view: _playlist.View) -> str:
    """The view's address. In a language other than English it opens in that language: lang= is added and each
    value is what the page shows in that language (a bound widget reads its shown label from the address)."""
    lang = i18n.language()
    if lang == i18n.DEFAULT or any(k == _language.KEY for k, _v in view.params):
        return view.url()
    params = tuple((k, shown(v)) for k, v in view.params) + ((_language.KEY, lang),)
    return replace(view, params=params).url()


def _say(where: str, kind: str, text: str) -> None:
    st.session_state[MESSAGE] = (where, kind, text)


def said(where: str) -> None:
    """Show the message left for this place by the last callback, once."""
    message = st.session_state.get(MESSAGE)
    if message and message[0] == where:
        del st.session_state[MESSAGE]
        getattr(st, message[1])(md(message[2]))


def _go(step: int) -> None:
    st.session_state[STEP] = step


def _add() -> None:
    """Form callback: the pasted link, title and note become a view at the end of the playlist, or a message
    says what is wrong with them."""
    s = st.session_state
    try:
        page, params = _playlist.parse_link(s["lecture_link"], list(pages()), host=_host())
        view = _playlist.make_view(s["lecture_section"] or _(_playlist.OWN), s["lecture_title"], page, params,
                                   s["lecture_note"], list(pages()))
    except _playlist.PlaylistError as e:
        _say("add", "error", str(e))
        return
    views = [*playlist(), view]
    if len(views) > _playlist.VIEWS_MAX:
        _say("add", "error", _("The playlist already holds {n} views; remove one first.").format(
            n=_playlist.VIEWS_MAX))
        return
    s[LIST] = views
    _go(len(views))
    _say("add", "success", _("Added “{title}” as view {i}.").format(title=view.title, i=len(views)))
    for key in ("lecture_link", "lecture_title", "lecture_note"):
        s[key] = ""


def _remove(i: int) -> None:
    views = playlist()
    if len(views) == 1:
        _say("file", "error", _("The playlist needs at least one view."))
        return
    st.session_state[LIST] = views[:i] + views[i + 1:]
    _go(min(i + 1, len(views) - 1))
    _say("file", "success", _("Removed “{title}”.").format(title=shown(views[i].title)))


def _reset() -> None:
    st.session_state.pop(LIST, None)
    _go(1)
    _say("file", "success", _("Back to the prepared plan."))


def _import() -> None:
    """Uploader callback: a playlist file replaces the playlist, or a message says what is wrong with it."""
    up = st.session_state.get("lecture_import")
    if up is None:
        return
    try:
        views = _playlist.loads(up.getvalue(), list(pages()))
    except _playlist.PlaylistError as e:
        _say("file", "error", _("“{file}” was not imported.").format(file=up.name) + f" {e}")
        return
    st.session_state[LIST] = views
    _go(1)
    _say("file", "success", ngettext("Imported {n} view from “{file}”.", "Imported {n} views from “{file}”.",
                                     len(views)).format(n=len(views), file=up.name))


def _use_last(link: str, title: str) -> None:
    st.session_state["lecture_link"] = link
    st.session_state["lecture_title"] = st.session_state.get("lecture_title") or title


def last_view() -> None:
    """A button that fills the form with the view of the page visited last in this session, if there is one."""
    page, query = st.session_state.get(_url.LAST, ("", ""))
    if page not in pages():
        return
    link = page + (f"?{query}" if query else "")
    title = _(pages()[page][0])
    a, b = st.columns([3, 1], vertical_alignment="center")
    a.caption(_("The page you just left: **{title}** · /{link}").format(
        title=md(title), link=md(link if len(link) <= 200 else link[:200] + "…")))
    b.button(_("Use that view"), icon=":material/history:", on_click=_use_last, args=(link, title), width="stretch",
             key="lecture_use_last")


def _jump() -> None:
    pick = st.session_state.get("lecture_jump")
    if pick is not None:
        _go(pick + 1)
        st.session_state["lecture_jump"] = None          # ready for the next jump, even to the same view


def _host() -> str | None:
    """The app's host:port as the browser sees it, so a pasted link from elsewhere is refused (None in tests)."""
    url = getattr(st.context, "url", None)
    return (urlsplit(url).netloc or None) if url else None


def current(view: _playlist.View, i: int, n: int) -> None:
    """The current view: its section, title and note, and the link that opens it."""
    title, icon = pages()[view.page]
    with st.container(border=True):
        st.caption(_("View {i} of {n} · {section}").format(i=i, n=n, section=md(shown(view.section))))
        st.subheader(md(shown(view.title)), anchor=False)
        if view.note:
            st.markdown(md(shown(view.note)))
        # a new tab is a new session: the page opens on exactly the view's inputs, whatever this session set
        # earlier on it, and this tab keeps the playlist and its place
        url = view_link(view)
        hosting = _class.host_params()                 # the opened tab hosts the class too (taken out of its link)
        opened = url + ("&" if "?" in url else "?") + urlencode(hosting) if hosting else url
        st.link_button(_("Open this view: {page}").format(page=_(title)), opened, icon=icon, type="primary",
                       shortcut="O", help=_("Opens in a new tab (shortcut O); close it to come back here."))
        readable = NON_ASCII.sub(lambda m: unquote(m.group()), url)    # 分词, not %E5%88%86%E8%AF%8D
        st.caption(_("Address: /{url}").format(url=md(readable)))


def render():
    st.title(_("Lecture"))
    if not (_present.mode() and _class.hosting()):     # on the projector during a class, its answers come first
        st.markdown(_("The course texts in order, the textbook's sections 12.1–12.10, the tutorial's parts and the "
                      "lecture's steps, each with a view of the app and what to point out in it. **←** and **→** "
                      "step through the playlist; **Open this view** (or **O**) opens the page with its inputs set "
                      "in a new tab; close that tab to come back here."))
    lecture_class.panel()
    views = playlist()
    n = len(views)
    if st.session_state.get(STEP, 1) > n:             # a shorter playlist was imported or a view removed
        _go(n)
    _url.stale_number(STEP, 1, n, _("view"), 1)
    left, middle, right = st.columns([1, 2, 1], vertical_alignment="bottom")
    i = int(middle.number_input(_("View (1–{n})").format(n=n), 1, n, step=1, key=STEP, bind=_url.BIND,
                                persist_state=_url.KEEP))
    left.button(_("Previous"), icon=":material/arrow_back:", shortcut="Left", on_click=_go, args=(i - 1,),
                disabled=i == 1, width="stretch", key="lecture_prev")
    right.button(_("Next"), icon=":material/arrow_forward:", icon_position="right", shortcut="Right", on_click=_go,
                 args=(i + 1,), disabled=i == n, width="stretch", key="lecture_next")
    current(views[i - 1], i, n)

    st.selectbox(_("Jump to a view ({n} in the playlist)").format(n=n), range(n), index=None, key="lecture_jump",
                 format_func=lambda k: f"{k + 1} · {shown(views[k].section)} · {shown(views[k].title)}",
                 on_change=_jump, placeholder=_("Type to search the sections and titles"))

    st.subheader(_("Your own views"), anchor=False)
    st.caption(_("Set up any page, press **Copy link** in the sidebar, paste the link here (or use the view you just "
                 "left). Own views live in this browser tab only: export the playlist to keep them."))
    last_view()
    with st.form("lecture_add", clear_on_submit=False, border=True):
        st.text_input(_("Link of the view"), key="lecture_link", max_chars=_playlist.URL_MAX,
                      placeholder=_("Paste what Copy link gives, such as …/explorer?explorer_layer=L3"))
        a, b = st.columns([3, 1])
        a.text_input(_("Title"), key="lecture_title", max_chars=_playlist.TITLE_MAX)
        b.text_input(_("Section"), _(_playlist.OWN), key="lecture_section", max_chars=_playlist.SECTION_MAX)
        st.text_area(_("What to point out"), key="lecture_note", max_chars=_playlist.NOTE_MAX, height=68)
        st.form_submit_button(_("Add to the playlist"), icon=":material/playlist_add:", on_click=_add)
    said("add")

    c1, c2, c3 = st.columns(3, vertical_alignment="bottom")
    c1.download_button(_("Export the playlist (JSON)"), _playlist.dumps(views), "lecture_playlist.json",
                       "application/json", icon=":material/download:", on_click="ignore", width="stretch",
                       key="lecture_export")
    c2.button(_("Remove view {i}").format(i=i), icon=":material/delete:", on_click=_remove, args=(i - 1,),
              width="stretch", key="lecture_remove")
    c3.button(_("Back to the prepared plan"), icon=":material/restart_alt:", on_click=_reset, width="stretch",
              disabled=LIST not in st.session_state, key="lecture_reset")
    st.file_uploader(_("Import a playlist (JSON exported here, up to {kb} KB)").format(kb=_playlist.FILE_MAX // 1000),
                     type=["json"],
                     key="lecture_import", on_change=_import, max_upload_size=1)
    said("file")
