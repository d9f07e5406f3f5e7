"""The lecture page's playlist editor: the lecturer's own cut of the prepared plan. The current view moves earlier
or later, several views are removed at once, views are added from links copied on any page (or the view just
left), and the playlist is exported or imported as a small JSON file. The cut is kept in the address
(_lecture.address), so a reload or a bookmark keeps it."""
from urllib.parse import urlsplit

import streamlit as st

from app_pages import _lecture, _playlist, _playlist_link, _url
from app_pages._markup import md
from i18n import _, ngettext

MESSAGE = "_lecture_message"    # session state: (where, kind, text) said once, next to the control it is about
PICKS = "lecture_remove_picks"  # the views picked for removal (not in the URL)


def say(where: str, kind: str, text: str) -> None:
    st.session_state[MESSAGE] = (where, kind, text)


def said(where: str) -> None:
    """Show the message left for this place by the last callback, once."""
    message = st.session_state.get(MESSAGE)
    if message and message[0] == where:
        del st.session_state[MESSAGE]
        getattr(st, message[1])(md(message[2]))


def select(step: int) -> None:
    """Make the view `step` (1-based) the current one in the list."""
    st.session_state[_lecture.STEP] = step


def _host() -> str | None:
    """The app's host:port as the browser sees it, so a pasted link from elsewhere is refused (None in tests)."""
    url = getattr(st.context, "url", None)
    return (urlsplit(url).netloc or None) if url else None


def _add() -> None:
    """Form callback: the pasted link, title and note become a view at the end of the playlist, or a message
    says what is wrong with them."""
    s = st.session_state
    pages = list(_lecture.pages())
    try:
        page, params = _playlist.parse_link(s["lecture_link"], pages, host=_host())
        view = _playlist.make_view(s["lecture_section"] or _(_playlist.OWN), s["lecture_title"], page, params,
                                   s["lecture_note"], pages)
    except _playlist.PlaylistError as e:
        say("add", "error", str(e))
        return
    views = [*_lecture.playlist(), view]
    if len(views) > _playlist.VIEWS_MAX:
        say("add", "error", _("The playlist already holds {n} views; remove one first.").format(
            n=_playlist.VIEWS_MAX))
        return
    _lecture.keep(views)
    select(len(views))
    say("add", "success", _("Added “{title}” as view {i}.").format(title=view.title, i=len(views)))
    for key in ("lecture_link", "lecture_title", "lecture_note"):
        s[key] = ""


def _remove(picked, now: int) -> None:
    """Remove the views at the 0-based places `picked`; `now` is the current view (1-based), kept if it stays."""
    views = _lecture.playlist()
    picked = set(picked)
    if len(picked) >= len(views):
        say("cut", "error", _("The playlist needs at least one view."))
        return
    _lecture.keep([v for k, v in enumerate(views) if k not in picked])
    select(max(1, min(now - sum(k < now - 1 for k in picked), len(views) - len(picked))))   # the same view, or the next
    st.session_state[PICKS] = []
    if len(picked) == 1:
        say("cut", "success", _("Removed “{title}”.").format(title=_lecture.shown(views[min(picked)].title)))
    else:
        say("cut", "success", ngettext("Removed {n} view.", "Removed {n} views.", len(picked)).format(
            n=len(picked)))


def _move(i: int, by: int) -> None:
    """Move the view at the 0-based place i by one place (by = -1 earlier, +1 later); the current view follows."""
    views = _lecture.playlist()
    views[i], views[i + by] = views[i + by], views[i]
    _lecture.keep(views)
    select(i + by + 1)


def _reset() -> None:
    st.session_state.pop(_lecture.LIST, None)
    select(1)
    say("cut", "success", _("Back to the prepared plan."))


def _import() -> None:
    """Uploader callback: a playlist file replaces the playlist, or a message says what is wrong with it."""
    up = st.session_state.get("lecture_import")
    if up is None:
        return
    try:
        views = _playlist.loads(up.getvalue(), list(_lecture.pages()))
    except _playlist.PlaylistError as e:
        say("file", "error", _("“{file}” was not imported.").format(file=up.name) + f" {e}")
        return
    _lecture.keep(views)
    select(1)
    say("file", "success", ngettext("Imported {n} view from “{file}”.", "Imported {n} views from “{file}”.",
                                    len(views)).format(n=len(views), file=up.name))


def editor(views, i: int) -> None:
    """Move the current view (1-based i), remove it or several picked views, go back to the prepared plan; where
    the cut is kept."""
    n = len(views)
    st.subheader(_("Your cut of the playlist"), anchor=False)
    a, b, c = st.columns(3, vertical_alignment="bottom")
    a.button(_("Move view {i} earlier").format(i=i), icon=":material/arrow_upward:", on_click=_move,
             args=(i - 1, -1), disabled=i == 1, width="stretch", key="lecture_earlier")
    b.button(_("Move view {i} later").format(i=i), icon=":material/arrow_downward:", on_click=_move,
             args=(i - 1, 1), disabled=i == n, width="stretch", key="lecture_later")
    c.button(_("Remove view {i}").format(i=i), icon=":material/delete:", on_click=_remove, args=([i - 1], i),
             width="stretch", key="lecture_remove")
    left, right = st.columns([2, 1], vertical_alignment="bottom")
    picks = left.multiselect(_("Views to remove"), range(n), key=PICKS,
                             format_func=lambda k: f"{k + 1} · {_lecture.shown(views[k].title)}",
                             placeholder=_("Pick the views this lecture leaves out"))
    right.button(ngettext("Remove {n} view", "Remove {n} views", len(picks)).format(n=len(picks)) if picks else
                 _("Remove the picked views"),
                 icon=":material/playlist_remove:", on_click=_remove, args=(picks, i), disabled=not picks,
                 width="stretch", key="lecture_remove_picked")
    said("cut")
    left, right = st.columns([2, 1], vertical_alignment="center")
    text = _lecture.cut_text()
    if text is None:
        left.caption(_("The prepared plan, all {n} views.").format(n=n))
    elif len(text) <= _playlist_link.TEXT_MAX:
        left.caption(_("Your cut ({n} views) is kept in this page's address: a reload keeps it, and a bookmark or "
                       "a copied link of this page brings it back.").format(n=n))
    else:
        left.warning(_("Your cut ({n} views) is too long to keep in the page's address ({chars:,} characters, at "
                       "most {most:,}): export the playlist to keep it.").format(n=n, chars=len(text),
                                                                                 most=_playlist_link.TEXT_MAX))
    right.button(_("Back to the prepared plan"), icon=":material/restart_alt:", on_click=_reset, width="stretch",
                 disabled=_lecture.LIST not in st.session_state, key="lecture_reset")


def _use_last(link: str, title: str) -> None:
    st.session_state["lecture_link"] = link
    st.session_state["lecture_title"] = st.session_state.get("lecture_title") or title


def last_view() -> None:
    """A button that fills the form with the view of the page visited last in this session, if there is one."""
    page, query = st.session_state.get(_url.LAST, ("", ""))
    if page not in _lecture.pages():
        return
    link = page + (f"?{query}" if query else "")
    title = _(_lecture.pages()[page][0])
    a, b = st.columns([3, 1], vertical_alignment="center")
    a.caption(_("The page you just left: **{title}** · /{link}").format(
        title=md(title), link=md(link if len(link) <= 200 else link[:200] + "…")))
    b.button(_("Use that view"), icon=":material/history:", on_click=_use_last, args=(link, title), width="stretch",
             key="lecture_use_last")


def own_views(views) -> None:
    """The form that adds a view from a link, and the export and import of the playlist."""
    st.subheader(_("Your own views"), anchor=False)
    st.caption(_("Set up any page, press **Copy link** in the sidebar, paste the link here (or use the view you just "
                 "left). Export the playlist to keep it as a file."))
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
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    left.download_button(_("Export the playlist (JSON)"), _playlist.dumps(views), "lecture_playlist.json",
                         "application/json", icon=":material/download:", on_click="ignore", width="stretch",
                         key="lecture_export")
    right.file_uploader(_("Import a playlist (JSON exported here, up to {kb} KB)").format(
        kb=_playlist.FILE_MAX // 1000), type=["json"], key="lecture_import", on_change=_import, max_upload_size=1)
    said("file")
