"""A link's values, read only by the widgets bound to them, each checked (Streamlit 1.67 has no setting for it).

A page's link parameters are the keys of its widgets bound with `bind="query-params"`; Streamlit reads a link's
value for one only when that widget registers (`SessionState._seed_widget_from_url`), so nothing else in the
session can be set from a link: the app itself writes no link value into the session. Here, at that moment:

- a label shown in the other language (a link made in English, opened in Chinese, or the reverse) is named in
  this session's language first, so the widget picks what the link's maker picked;
- a parameter whose name no widget could have (an internal key, "_..." ) leaves the address with a notice
  (`notices`, app.py);
- a value the widget cannot take is dropped from the link, the widget shows its default, and the sidebar says
  so: one its parser chokes on in any way (a 400-digit number overflowed Streamlit's integer box, which catches
  only ValueError), or one no widget of its kind could send (input_checks.refused: a number out of range or not
  finite, a pick not among the options).

`install()` runs from runtime.install() at the start of every script run; it patches once per process."""
import logging
import re
import threading

import streamlit as st
from streamlit.runtime.state.session_state import SessionState

import i18n
from i18n import _
from runtime import input_checks

SHOWN_MAX = 40                 # characters of a dropped value quoted in the notice
LINK_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,59}")   # what a widget key (a link parameter's name) looks like
_log = logging.getLogger(__name__)
_lock = threading.Lock()
_original = {}


def named_here(url_value, options):
    """The link's value(s) with each label of the other language named as this language's widget shows it (only
    where that names one of `options`)."""
    if not options:
        return url_value

    def one(v):
        if v in options or not isinstance(v, str):
            return v
        here = i18n.relabel(v, options)
        return here if here in options else v
    return [one(v) for v in url_value] if isinstance(url_value, list) else one(url_value)


def _shown(value) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if len(text) <= SHOWN_MAX else text[:SHOWN_MAX] + "…"


def _dropped(state: SessionState, metadata, user_key: str, widget_id: str, url_value) -> bool:
    """Forget what the link set for this widget (it shows its default) and say so in the sidebar."""
    state._new_widget_state.states.pop(widget_id, None)
    state._new_session_state.pop(user_key, None)
    state._clear_url_param(user_key)
    _log.warning("ignored a link value no widget offers: %r for %r", _shown(url_value), user_key)
    st.sidebar.warning(_("The link's value “{value}” for “{control}” is not one this page offers; the control shows "
                         "its default.").format(value=_markdown(_shown(url_value)), control=_markdown(user_key)),
                       icon=":material/link_off:")
    return False


def _markdown(text: str) -> str:
    """Text a client chose, shown literally in Markdown."""
    return "".join("\\" + c if c in "\\`*_{}[]()#+-.!|<>~$:" else c for c in text)


def _seed_checked(self: SessionState, metadata, user_key: str, widget_id: str, url_value) -> bool:
    """Replaces SessionState._seed_widget_from_url: the link's value named in this language, then seeded by
    Streamlit, then checked as a value the browser sent would be; anything wrong drops it with a notice."""
    url_value = named_here(url_value, metadata.formatted_options)
    try:
        seeded = _original["seed"](self, metadata, user_key, widget_id, url_value)
    except Exception:                                  # a parser that raises past Streamlit's own catch
        return _dropped(self, metadata, user_key, widget_id, url_value)
    stored = self._new_widget_state.get_serialized(widget_id) if seeded else None
    if stored is not None and input_checks.refused(metadata, stored) is not None:
        return _dropped(self, metadata, user_key, widget_id, url_value)
    return seeded


def notices(escape) -> None:
    """At the start of every run (app.py): a link parameter no control of this app could be bound to (an internal
    name: one starting with "_", or not a widget key at all) leaves the address with a notice, each value passed
    through `escape` (the page's Markdown escape: the client chose them)."""
    for key in [k for k in st.query_params if not LINK_KEY.fullmatch(k)]:
        del st.query_params[key]
        st.warning(_("Ignored the link's parameter “{name}”: no control of this app reads it.").format(
            name=escape(_shown(key))), icon=":material/link_off:")


def install() -> None:
    """Check every link value as its widget reads it (idempotent)."""
    with _lock:
        if SessionState._seed_widget_from_url is not _seed_checked:
            _original["seed"] = SessionState._seed_widget_from_url
            SessionState._seed_widget_from_url = _seed_checked
