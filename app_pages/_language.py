"""The interface language of a session: a switch at the top of the sidebar, kept in the URL as `lang=zh` (English,
the default, leaves the URL clean), so a copied link opens in the language it was made in (a link's picks named in
another language are renamed in this one as each widget reads them: runtime/link_values.py). The switch is not a
bound widget because a bound widget writes its shown label ("中文") into the URL, not the code."""
import streamlit as st

import i18n
from app_pages._markup import md
from app_pages._url import SHOWN_MAX

KEY = "lang"


def _session_language() -> str:
    try:
        return st.session_state.get(KEY, i18n.DEFAULT)
    except Exception:                 # outside a session (a bare import, a worker thread): the source language
        return i18n.DEFAULT


def install():
    """Make i18n read each session's language from its state (called once per run, before any page text)."""
    i18n.use(_session_language)


def switch():
    """The language switch (sidebar), its link value read on the session's first run and written back after."""
    raw = st.query_params.get(KEY)
    if KEY not in st.session_state:
        st.session_state[KEY] = raw if raw in i18n.LANGUAGES else i18n.DEFAULT
        if raw is not None and raw not in i18n.LANGUAGES:
            shown = raw if len(raw) <= SHOWN_MAX else raw[:SHOWN_MAX] + "…"
            st.info(i18n._("The link asked for the language “{asked}”; showing {shown}.").format(
                asked=md(shown), shown=i18n.LANGUAGES[i18n.DEFAULT]))
    st.radio("Language · 语言", list(i18n.LANGUAGES), key=KEY, format_func=i18n.LANGUAGES.get, horizontal=True,
             label_visibility="collapsed")
    chosen = st.session_state[KEY]
    if chosen == i18n.DEFAULT:
        if KEY in st.query_params:
            del st.query_params[KEY]
    elif raw != chosen:
        st.query_params[KEY] = chosen

