"""What the server does when a download button is clicked (the server side of app_pages/_export.py; Streamlit 1.67
offers no setting for any of it). A button made on click (a callable) sends the server a request; this module:

- answers a click that raced a rerun with "the view changed: click again": the button's callable belonged to a
  run that has since been replaced (Streamlit logs MediaFileStorageError and the browser shows nothing useful);
- runs a session's downloads one at a time, and refuses a request for another session's button;
- bounds what one session holds: a file over DOWNLOAD_MB is refused with its size, and the files a session made
  are dropped from the server's memory GRACE_S after they were made (the browser fetches a file as soon as it is
  told its address), sooner, oldest first, when together they would pass DOWNLOAD_MB (Streamlit keeps them until
  two later script runs end, in any session: a session clicking without rerunning held one file per click);
- words every answer in the session's language (remembered at each run by `remember`).

`install()` runs from app.py at the start of every script run; it patches once per process."""
import asyncio
import logging
import os
import threading
import time
from collections import deque

from streamlit.proto.ForwardMsg_pb2 import BackendOperationResponse, DeferredFileResponsePayload
from streamlit.runtime import Runtime
from streamlit.runtime.backend_operation_handler import DeferredFileHandler
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

import i18n
from i18n import N_

DOWNLOAD_MB = int(os.environ.get("ATTENTION_LAB_DOWNLOAD_MB", "64"))   # one file, and all one session holds
GRACE_S = 10.0                  # a made file stays this long for the browser to fetch it
VIEW_CHANGED = N_("The view changed since this button was drawn: click it again.")
BUSY = N_("Your previous download is still being made: click again when it is done.")
TOO_LARGE = N_("This file would be {mb:,.1f} MiB; a download may be at most {most:,} MiB on this server.")
FAILED = N_("This file could not be made: {why}")
_log = logging.getLogger(__name__)
_lock = threading.Lock()
_languages: dict[str, str] = {}               # session id -> its language at its last run
_held: dict[str, deque] = {}                  # session id -> (file id, bytes, made at) of the files it made
_making: set[str] = set()                     # sessions with a download being made
_original = {}


class DownloadError(RuntimeError):
    """A download refused or failed, with the message (N_-marked, and its values) the button shows."""

    def __init__(self, message: str, **values):
        super().__init__(message.format(**values))
        self.message, self.values = message, values

    def shown(self, language: str) -> str:
        return i18n.catalogue(language).gettext(self.message).format(**self.values)


def remember() -> None:
    """At each run: this session's language, for the answers given outside its runs."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    with _lock:
        _languages[ctx.session_id] = i18n.language()
        if len(_languages) > 512:              # forget sessions that are gone
            for sid in [s for s in _languages if not (Runtime.exists() and Runtime.instance().is_active_session(s))]:
                _languages.pop(sid, None)
                _held.pop(sid, None)


def held_bytes(session_id: str) -> int:
    """The bytes of downloads this session made that the server still holds."""
    with _lock:
        return sum(n for _, n, _ in _held.get(session_id, ()))


def _checked(make):
    """The callable, its result refused when larger than DOWNLOAD_MB."""
    def made():
        data = make()
        size = len(data.encode() if isinstance(data, str) else data)
        if size > DOWNLOAD_MB << 20:
            raise DownloadError(TOO_LARGE, mb=size / 2**20, most=DOWNLOAD_MB)
        return data
    made.checked = True
    return made


def _forget(mgr: MediaFileManager, session_id: str, incoming: int = 0) -> None:
    """Drop this session's made files: those older than GRACE_S, and older ones while the rest plus `incoming`
    bytes pass DOWNLOAD_MB. Call with mgr._lock and _lock held."""
    files = _held.get(session_id)
    if not files:
        return
    now = time.monotonic()
    while files:
        fid, size, made = files[0]
        total = sum(n for _, n, _ in files) + incoming
        if now - made < GRACE_S and total <= DOWNLOAD_MB << 20:
            break
        files.popleft()
        shared = any(fid in coords.values() for coords in mgr._files_by_session_and_coord.values()) or any(
            fid == f for sid, other in _held.items() if sid != session_id for f, _, _ in other)
        if not shared and fid in mgr._file_metadata:
            mgr._delete_file(fid)


def _execute_deferred(self: MediaFileManager, file_id: str) -> str:
    """Replaces MediaFileManager.execute_deferred: one download at a time per session, each checked against
    DOWNLOAD_MB, and the session's earlier files let go."""
    with self._lock:
        entry = self._deferred_callables.get(file_id)
        if entry is None:
            raise DownloadError(VIEW_CHANGED)
        if not getattr(entry["callable"], "checked", False):
            entry["callable"] = _checked(entry["callable"])
        session_id = entry["session_id"]
    with _lock:
        if session_id in _making:
            raise DownloadError(BUSY)
        _making.add(session_id)
    try:
        url = _original["execute_deferred"](self, file_id)
    except Exception as e:
        cause = e.__cause__
        if isinstance(cause, DownloadError):
            raise cause from None
        raise
    finally:
        with _lock:
            _making.discard(session_id)
    made = os.path.splitext(url.rsplit("/", 1)[-1])[0]
    with self._lock, _lock:
        size = len(self._storage.get_file(made).content) if made in self._file_metadata else 0
        _held[session_id] = deque(f for f in _held.get(session_id, ()) if f[0] != made)
        _forget(self, session_id, incoming=size)
        _held[session_id].append((made, size, time.monotonic()))
    timer = threading.Timer(GRACE_S + 0.5, _let_go, (self, session_id))
    timer.daemon = True
    timer.start()
    return url


def _let_go(mgr: MediaFileManager, session_id: str) -> None:
    """GRACE_S after a download was made: drop the session's files that are that old."""
    with mgr._lock, _lock:
        _forget(mgr, session_id)
        if not _held.get(session_id):
            _held.pop(session_id, None)


async def _handle(self: DeferredFileHandler, request, session_id: str) -> BackendOperationResponse:
    """Replaces DeferredFileHandler.handle: the file's address, or why not in the session's language."""
    file_id = request.deferred_file.file_id
    mgr = self._get_media_file_mgr()
    try:
        with mgr._lock:
            entry = mgr._deferred_callables.get(file_id)
        if entry is None or entry["session_id"] != session_id:
            raise DownloadError(VIEW_CHANGED)           # replaced by a rerun (or not this session's button)
        url = await asyncio.to_thread(mgr.execute_deferred, file_id)
        return BackendOperationResponse(request_id=request.request_id,
                                        deferred_file=DeferredFileResponsePayload(url=url))
    except Exception as e:
        language = _languages.get(session_id, i18n.DEFAULT)
        if isinstance(e, DownloadError):
            _log.info("download %s refused: %s", file_id, e)
            shown = e.shown(language)
        else:
            _log.exception("download %s failed", file_id)
            cause = e.__cause__ or e
            why = str(cause) if type(cause).__name__ == "RenderError" else type(cause).__name__
            shown = DownloadError(FAILED, why=why).shown(language)
        return BackendOperationResponse(request_id=request.request_id, error_msg=shown)


def install() -> None:
    """Patch Streamlit's download path (idempotent)."""
    with _lock:
        if MediaFileManager.execute_deferred is not _execute_deferred:
            _original["execute_deferred"] = MediaFileManager.execute_deferred
            MediaFileManager.execute_deferred = _execute_deferred
        DeferredFileHandler.handle = _handle
