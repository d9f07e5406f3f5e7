"""What the server does when a download button is clicked (the server side of app_pages/_export.py; Streamlit 1.67
offers no setting for any of it). A button made on click (a callable) sends the server a request; this module:

- answers a click that raced a rerun with "the view changed: click again": the button's callable belonged to a
  run that has since been replaced (Streamlit logs MediaFileStorageError and the browser shows nothing useful);
- runs a session's downloads one at a time, and refuses a request for another session's button;
- keeps a made file until its browser has had GRACE_S to fetch it, whatever other sessions do: Streamlit leaves
  a file made on click unreferenced and its sweep after every script run of any session deletes such a file at
  the second sweep, so in a busy class most downloads answered "File not found"; files held here are kept out of
  that sweep and dropped by this module once GRACE_S has passed;
- bounds the memory that takes instead: a file over DOWNLOAD_MB is refused with its size; a session's files
  together stay under DOWNLOAD_MB (its older ones let go first); all sessions' files together stay under HELD_MB,
  beyond which a click is refused with a message to click again in a few seconds;
- words every answer in the session's language (remembered at each run by `remember`).

`install()` runs from runtime.install() at the start of every script run; it patches once per process."""
import asyncio
import logging
import os
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from streamlit.proto.ForwardMsg_pb2 import BackendOperationResponse, DeferredFileResponsePayload
from streamlit.runtime import Runtime
from streamlit.runtime.backend_operation_handler import DeferredFileHandler
from streamlit.runtime.download_data_util import convert_data_to_bytes_and_infer_mime
from streamlit.runtime.media_file_manager import MediaFileManager, MediaFileMetadata
from streamlit.runtime.media_file_storage import MediaFileKind, MediaFileStorageError
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

import i18n
from i18n import N_

DOWNLOAD_MB = int(os.environ.get("ATTENTION_LAB_DOWNLOAD_MB", "64"))   # one file, and all one session holds
HELD_MB = int(os.environ.get("ATTENTION_LAB_DOWNLOADS_HELD_MB", "512"))  # all sessions' made files together
GRACE_S = 30.0                  # a made file stays this long for the browser to fetch it
VIEW_CHANGED = N_("The view changed since this button was drawn: click it again.")
BUSY = N_("Your previous download is still being made: click again when it is done.")
TOO_LARGE = N_("This file would be {mb:,.1f} MiB; a download may be at most {most:,} MiB on this server.")
FAILED = N_("This file could not be made: {why}")
SERVER_FULL = N_("The server is holding {mb:,} MiB of other users' downloads just now: click again in a few seconds.")
_log = logging.getLogger(__name__)
_lock = threading.Lock()
_languages: dict[str, str] = {}               # session id -> its language at its last run
_held: dict[str, deque] = {}                  # session id -> (file id, bytes, made at) of the files it made
_making: set[str] = set()                     # sessions with a download being made
_original = {}
# Files are made on threads of their own, never asyncio's default ones (shared with the server's other work): quick
# files on one pool, files made holding a heavy-job slot (a slide drawn by the browser) on another, so a crowd of
# slides waiting for their turn never holds up a CSV.
_QUICK = ThreadPoolExecutor(4, thread_name_prefix="download")
_SLOW = ThreadPoolExecutor(8, thread_name_prefix="download-slow")


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
        _delete_unless_shared(mgr, fid)


def _delete_unless_shared(mgr: MediaFileManager, fid: str) -> None:
    """Delete a made file no session's page shows and no session's download still holds. Call with mgr._lock and
    _lock held."""
    shared = any(fid in coords.values() for coords in mgr._files_by_session_and_coord.values()) or any(
        fid == f for files in _held.values() for f, _, _ in files)
    if not shared and fid in mgr._file_metadata:
        mgr._delete_file(fid)


def _held_total() -> int:
    """Bytes of every session's made files still held. Call with _lock held."""
    return sum(n for files in _held.values() for _, n, _ in files)


def _inactive_file_ids(self: MediaFileManager) -> set[str]:
    """Replaces MediaFileManager._get_inactive_file_ids, what Streamlit's sweep after every script run deletes:
    the same, less the made files this module still holds for their browsers."""
    with _lock:
        held = {fid for files in _held.values() for fid, _, _ in files}
    return _original["inactive"](self) - held


def _execute_deferred(self: MediaFileManager, file_id: str) -> str:
    """Replaces MediaFileManager.execute_deferred: one download at a time per session, the file checked against
    DOWNLOAD_MB, stored and held (kept out of Streamlit's sweep) in one step, the session's older files and every
    session's files past their grace let go, all held files together kept under HELD_MB."""
    with self._lock:
        entry = self._deferred_callables.get(file_id)
        if entry is None:
            raise DownloadError(VIEW_CHANGED)
        session_id = entry["session_id"]
    with _lock:
        if session_id in _making:
            raise DownloadError(BUSY)
        _making.add(session_id)
    try:
        try:
            made_data = entry["callable"]()
        except DownloadError:
            raise
        except Exception as e:
            raise MediaFileStorageError(f"Callable execution failed: {e}") from e
        unsupported = MediaFileStorageError(f"Callable returned unsupported type: {type(made_data)}")
        data, inferred = convert_data_to_bytes_and_infer_mime(made_data, unsupported_error=unsupported)
        if len(data) > DOWNLOAD_MB << 20:
            raise DownloadError(TOO_LARGE, mb=len(data) / 2**20, most=DOWNLOAD_MB)
    finally:
        with _lock:
            _making.discard(session_id)
    with self._lock, _lock:
        made = self._storage.load_and_get_id(data, entry["mimetype"] or inferred, MediaFileKind.DOWNLOADABLE,
                                             entry["filename"])
        self._file_metadata[made] = MediaFileMetadata(kind=MediaFileKind.DOWNLOADABLE)
        mine = _held[session_id] = deque(f for f in _held.get(session_id, ()) if f[0] != made)
        _forget(self, session_id, incoming=len(data))
        mine.append((made, len(data), time.monotonic()))   # held before any other session's file is let go
        if _held_total() > HELD_MB << 20:
            for sid in [s for s in _held if s != session_id]:
                _forget(self, sid)                         # other sessions' files past their grace, first
        if _held_total() > HELD_MB << 20:
            mine.pop()
            _delete_unless_shared(self, made)
            raise DownloadError(SERVER_FULL, mb=round(_held_total() / 2**20))
        url = self._storage.get_url(made)
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
        pool = _SLOW if getattr(entry["callable"], "heavy", False) else _QUICK
        url = await asyncio.get_running_loop().run_in_executor(pool, mgr.execute_deferred, file_id)
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
        MediaFileManager.execute_deferred = _execute_deferred
        if MediaFileManager._get_inactive_file_ids is not _inactive_file_ids:
            _original["inactive"] = MediaFileManager._get_inactive_file_ids
            MediaFileManager._get_inactive_file_ids = _inactive_file_ids
        DeferredFileHandler.handle = _handle
