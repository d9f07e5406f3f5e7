"""What one client can reach on the shared server, bounded (Streamlit 1.67 offers no setting for either):

- the "clear cache" message (BackMsg.clear_cache) is refused: Streamlit's AppSession clears st.cache_data and
  st.cache_resource for every session of the process when any client sends it, menu shown or not, so a loop of
  them would keep every page cold for everyone;
- `/_stcore/metrics` reports nothing: its stats manager feeds only that endpoint, which would otherwise show
  anyone the sessions, cache entries and activity of every user.

`install()` runs from runtime.install() at the start of every script run; it patches once per process. Tests:
tests/browser/test_server_guards.py (a real server, the real websocket messages)."""
import logging
import threading

from streamlit.runtime import Runtime
from streamlit.runtime.app_session import AppSession

_log = logging.getLogger(__name__)
_lock = threading.Lock()


def _refuse_clear_cache(self: AppSession) -> None:
    """Replaces AppSession._handle_clear_cache_request: the caches are the process's, not one client's."""
    _log.info("refused a clear_cache message from session %s", self.id)


def _no_stats(family_names=None) -> dict:
    return {}


def install() -> None:
    """Refuse clear_cache from every session and empty the metrics endpoint (idempotent)."""
    with _lock:
        if AppSession._handle_clear_cache_request is not _refuse_clear_cache:
            AppSession._handle_clear_cache_request = _refuse_clear_cache
        if Runtime.exists():                       # AppTest runs scripts without a server runtime
            stats = Runtime.instance().stats_mgr   # the same object the metrics route holds
            stats.registered_families = list
            stats.get_stats = _no_stats
