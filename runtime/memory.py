"""What a long session lets go of at the start of every run, so memory stays flat over a lecture's reruns.

Widgets of earlier runs: Streamlit 1.67 keeps the metadata of every widget a session has ever
drawn: `WStates.remove_stale_widgets` drops their values but not their metadata. A chart with `on_select`
gets a new widget id whenever its figure changes, and its metadata holds the callback and its arguments, which
can reach that run's values (a callback defined inside a page's render function closes over the weights,
figures and images of the run). Over a lecture's reruns that is hundreds of MB. Called at the start of every
run, when the previous run's stale widgets have already lost their values and callbacks have already fired, it
drops metadata whose widget has no value left.

Freed heap: every run is a new thread, and glibc gives threads their own heaps (arenas); memory freed there
stays mapped (fragmented between live blocks) unless trimmed. `malloc_trim` hands it back (a few ms).

The collector's walk: Streamlit runs a full garbage collection after every run (runner.postScriptGC), and a
full collection walks every tracked object of the process (torch, Plotly, pandas, the loaded models): 0.4 s
of CPU per rerun on the 2-core machine, with the GIL held, so every other session waited too. What lives as long
as the process is moved out of its sight (`gc.freeze`) once it exists, after a run that imported modules or
loaded a model; the collection after each run then walks only what sessions and runs made."""
import ctypes
import functools
import gc
import sys
import threading

from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.state.common import TESTING_KEY


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
        # Under AppTest (only), Streamlit also saves each widget's format_func by widget id in a dict that is
        # never pruned either: the same rule, so tests measure the app and not the harness.
        for where in (old, getattr(state, "_new_session_state", None)):
            saved = where.get(TESTING_KEY) if isinstance(where, dict) else None
            if isinstance(saved, dict):
                for wid in [w for w in saved if w not in meta]:
                    del saved[wid]
    return len(stale)


def _libc():
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:                                   # not glibc (macOS, Windows, musl): nothing to trim
        return None


LIBC = _libc()


def release_freed_heap() -> bool:
    """Return freed memory of every glibc arena to the system; False where there is no glibc."""
    trim = getattr(LIBC, "malloc_trim", None)
    if trim is None:
        return False
    trim(0)
    return True


@functools.cache                                     # a process-wide setting: once is enough
def bound_heap_fragmentation(mmap_threshold: int = 256 << 10, arenas: int = 2) -> bool:
    """glibc: blocks over `mmap_threshold` bytes (figure JSON, weight arrays, PNGs) get their own mapping and
    go back to the system when freed, instead of leaving holes in a heap; at most `arenas` heaps are shared
    by all threads. Without this, free holes in the heaps grew from 31 to 145 MB over 100 reruns of the
    generation page (mallinfo2), against 57 MB with it."""
    mallopt = getattr(LIBC, "mallopt", None)
    if mallopt is None:
        return False
    return bool(mallopt(-3, mmap_threshold)) and bool(mallopt(-8, arenas))   # M_MMAP_THRESHOLD, M_ARENA_MAX


_frozen = {"key": None}
_freeze_lock = threading.Lock()


def freeze_long_lived(models_loaded: int) -> bool:
    """After a run that imported a module or loaded a model (`models_loaded`: the process's count so far),
    collect once and freeze every object now alive: modules and models live as long as the process. Returns
    whether it froze. Frozen objects are still freed by reference counting; the collection before the freeze
    keeps the run's cyclic garbage out."""
    key = (len(sys.modules), models_loaded)
    with _freeze_lock:
        if _frozen["key"] == key:
            return False
        gc.collect()
        gc.freeze()
        _frozen["key"] = key
    return True
