"""Forget the widgets of earlier runs. Streamlit 1.67 keeps the metadata of every widget a session has ever
drawn: `WStates.remove_stale_widgets` drops their values but not their metadata. A chart with `on_select`
gets a new widget id whenever its figure changes, and its metadata holds the callback, whose globals are that
run's page namespace (the weights, figures and images of the run). Over a lecture's reruns that is hundreds
of MB. Called at the start of every run, when the previous run's stale widgets have already lost their
values and callbacks have already fired, it drops metadata whose widget has no value left."""
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx


def forget_stale_widgets() -> int:
    """Drop metadata of widgets no longer in this session's state; returns how many (0 if the internals
    differ from Streamlit 1.67's: then nothing is touched)."""
    ctx = get_script_run_ctx()
    safe = getattr(ctx, "session_state", None)
    state, lock = getattr(safe, "_state", None), getattr(safe, "_lock", None)
    widgets = getattr(state, "_new_widget_state", None)
    meta, values, old = (getattr(widgets, "widget_metadata", None), getattr(widgets, "states", None),
                         getattr(state, "_old_state", None))
    if not all(isinstance(x, dict) for x in (meta, values, old)) or lock is None:
        return 0
    with lock:
        stale = [wid for wid in meta if wid not in values and wid not in old]
        for wid in stale:
            del meta[wid]
    return len(stale)
