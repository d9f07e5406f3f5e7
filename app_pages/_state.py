"""Widget state the pages share: a stored pick kept valid when its options change (another text, another
model). Values that should survive page changes use Streamlit's own `persist_state="session"`."""
import streamlit as st


def keep_valid_choice(key: str, options, format_func=str, default=None):
    """Before a selectbox with these options is created: keep st.session_state[key] only if it is one of the
    options. When the options change (other text, another model) the browser can hand back the widget's old
    formatted label, a str; a label that names a current option is mapped back to it, anything else is replaced
    by `default` (or the first option), so pages never compare a stale string with an int."""
    if key not in st.session_state:
        return
    options = list(options)
    value = st.session_state[key]
    if any(value == o and type(value) is type(o) for o in options):
        return
    labels = [format_func(o) for o in options]
    if isinstance(value, str) and value in labels:
        st.session_state[key] = options[labels.index(value)]
    elif options:
        st.session_state[key] = default if default in options else options[0]


def clamp_index(key: str, upper: int, default: int = 0):
    """Keep a stored widget index in 0..upper-1 when the model or the text changes (the browser may hand back
    a selectbox's old label, a string, when its options changed)."""
    value = st.session_state.get(key)
    if not isinstance(value, int) or not 0 <= value < upper:
        st.session_state[key] = default if default < upper else 0
