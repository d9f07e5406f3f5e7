"""The lecture's playlist in a session: the prepared plan, or the lecturer's own cut of it (views added, removed,
reordered), which also lives in the address as `lecture_cut=…` (_playlist_link) so a reload, a bookmark or a copied
link keeps it; the pages a view may open; a view's texts in the session's language, and its parameters as a view
opened from the lecture page gets them (the language, presentation mode and the class it hosts kept)."""
import re
from dataclasses import replace

import streamlit as st

import i18n
from app_pages import _class, _language, _pages, _playlist, _playlist_link, _present
from app_pages._cache_sizes import ONE
from app_pages._markup import md
from i18n import _

STEP = "lecture_step"           # the current view, 1-based, bound to the URL
LIST = "lecture_playlist"       # session state: the playlist when it is not the prepared plan
CUT = "lecture_cut"             # the address's parameter holding LIST (_playlist_link)
READ = "_lecture_cut_read"      # session state: the address's cut was read (once per session)
SKIP = {_pages.HOME, "lecture", "classroom"}
TEXTBOOK_SECTION = re.compile(r"教材\s*(\d+(?:\.\d+)*)")   # the plan's "教材 12.6.2": a section of the textbook


def pages() -> dict[str, tuple[str, str]]:
    """url path -> (title, icon) of each page a view may open."""
    return {name: (title, icon) for name, title, icon, _blurb in _pages.PAGES if name not in SKIP}


@st.cache_data(max_entries=ONE)
def prepared_plan(names: tuple[str, ...]) -> list[_playlist.View]:
    return _playlist.prepared(names)


def plan() -> list[_playlist.View]:
    return prepared_plan(tuple(pages()))


def playlist() -> list[_playlist.View]:
    return st.session_state.get(LIST) or plan()


def keep(views) -> None:
    """Make `views` the session's playlist (the address follows on the lecture page's next run: address())."""
    st.session_state[LIST] = list(views)


def cut_text() -> str | None:
    """The playlist as the address holds it; None for the prepared plan."""
    return _playlist_link.dumps(playlist(), plan())


def address() -> None:
    """The lecture page, each run: on the session's first, a cut in the address becomes the playlist (a notice says
    why one that cannot be read is ignored); after that, the address follows the playlist (no parameter for the
    prepared plan, nor for a cut too long for a link: the page says so)."""
    raw = st.query_params.get(CUT)
    if not st.session_state.get(READ):
        st.session_state[READ] = True
        if raw is not None and LIST not in st.session_state:
            try:
                keep(_playlist_link.loads(raw, plan(), list(pages())))
            except _playlist.PlaylistError as e:
                st.info(_("The link's cut of the playlist was not read ({why}); showing the prepared plan.").format(
                    why=md(str(e))))
    text = cut_text()
    if text is not None and len(text) <= _playlist_link.TEXT_MAX:
        if raw != text:
            st.query_params[CUT] = text
    elif raw is not None:
        del st.query_params[CUT]


def shown(text: str) -> str:
    """A view's section, title or note in the session's language: the prepared plan's texts have translations
    (a lecturer's own text has none and shows as typed). The plan names the textbook's sections as the Chinese
    textbook does ("教材 12.6.2"); in English that reads "textbook 12.6.2"."""
    if text and (section := TEXTBOOK_SECTION.fullmatch(text.strip())):
        return _("textbook {section}").format(section=section[1])
    return _(text) if text else text


def in_language(view: _playlist.View) -> _playlist.View:
    """The view as it opens in the session's language: in a language other than English, lang= is added and each
    value is what the page shows in that language (a bound widget reads its shown label from the address)."""
    lang = i18n.language()
    if lang == i18n.DEFAULT or any(k == _language.KEY for k, _v in view.params):
        return view
    params = tuple((k, shown(v)) for k, v in view.params) + ((_language.KEY, lang),)
    return replace(view, params=params)


def view_link(view: _playlist.View) -> str:
    """The view's address in the session's language (in_language)."""
    return in_language(view).url()


def presenting_params() -> tuple[tuple[str, str], ...]:
    """present=… while presenting (the mode as the switch shows it), else nothing."""
    if _present.mode() is None:
        return ()
    return ((_present.KEY, str(st.session_state.get(_present.KEY) or st.query_params.get(_present.KEY))),)


def lecture_params() -> tuple[tuple[str, str], ...]:
    """The lecture list's own parameters on the way back to it: the cut, the language, presentation mode."""
    cut = cut_text()
    lang = i18n.language()
    return (((CUT, cut),) if cut and len(cut) <= _playlist_link.TEXT_MAX else ()) \
        + (((_language.KEY, lang),) if lang != i18n.DEFAULT else ()) + presenting_params()


def opened_params(view: _playlist.View) -> tuple[tuple[str, str], ...]:
    """The view's parameters as the lecture page opens it: in the session's language, presenting as now."""
    return in_language(view).params + presenting_params()


def new_tab_link(view: _playlist.View) -> str:
    """The view's address for a new tab (a new session): presenting as now, hosting the class this tab hosts (its
    key is taken out of the address as the tab opens)."""
    return replace(view, params=opened_params(view) + tuple(_class.host_params().items())).url()
