"""Uploads only where the server asked for them, and bounded (Streamlit 1.67 offers no setting for either).

A browser's file uploader first asks its session for upload addresses (BackMsg.file_urls_request: the server makes
a file id for each file), then PUTs each file to `/_stcore/upload_file/<session id>/<file id>`. Streamlit stores a
PUT to any file id of a live session, so one client could fill the server's memory with files to ids it was never
given. Here a PUT is answered before a byte of its body is read when:

- its file id is not one the server issued to that (live) session (at most ISSUED_MAX outstanding per session):
  404 (a session that is not live Streamlit refuses itself, also unread);
- it has no Content-Length (the browser always sends one): 411;
- the session's uploads with this one would pass SESSION_MB (a picture and its replacement fit): 413;
- every session's uploads with this one would pass HELD_MB: 503.

The check sits in front of Streamlit's routes (its path-security middleware, the first of them), on the path as
the router matches it (percent-decoded), so an encoded path cannot slip past it. `install()` runs from
runtime.install() at the start of every script run; it patches once per process; before the process's first script
run no session has been issued an upload address, and none is accepted either way."""
import collections
import re
import threading

from streamlit import config
from streamlit.runtime import Runtime
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.web.server.starlette.starlette_path_security_middleware import PathSecurityMiddleware

ISSUED_MAX = 64                  # upload addresses a session may hold unused; older ones lapse
SESSION_MB = 3 * int(config.get_option("server.maxUploadSize"))   # one session's uploads held at once, MiB
HELD_MB = 512                    # all sessions' uploads held at once, MiB
UPLOAD_PATH = re.compile(r"/_stcore/upload_file/(?P<session>[^/]+)/(?P<file>[^/]+)/?$")
NOT_ISSUED = "upload refused: this file id was not issued to this session"
NO_LENGTH = "upload refused: no Content-Length"
SESSION_FULL = "upload refused: this session already holds {mb} MiB of uploads"
SERVER_FULL = "upload refused: the server holds {mb} MiB of uploads just now, try again in a minute"
_lock = threading.Lock()
_issued: dict[str, collections.OrderedDict] = {}      # session id -> file ids issued, oldest first
_original = {}


def _get_upload_urls(self: MemoryUploadedFileManager, session_id: str, file_names):
    """Replaces MemoryUploadedFileManager.get_upload_urls: the addresses, each file id remembered for the session."""
    infos = _original["get_upload_urls"](self, session_id, file_names)
    with _lock:
        ids = _issued.setdefault(session_id, collections.OrderedDict())
        for info in infos:
            ids[info.file_id] = None
        while len(ids) > ISSUED_MAX:
            ids.popitem(last=False)
    return infos


def _remove_session_files(self: MemoryUploadedFileManager, session_id: str) -> None:
    """Replaces MemoryUploadedFileManager.remove_session_files (a session ended): its addresses lapse too."""
    with _lock:
        _issued.pop(session_id, None)
    _original["remove_session_files"](self, session_id)


def issued(session_id: str, file_id: str) -> bool:
    with _lock:
        return file_id in _issued.get(session_id, ())


def refusal(path: str, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
    """(status, text) for a PUT to `path` (as routed: percent-decoded) that must not be read, None otherwise."""
    match = UPLOAD_PATH.search(path)
    if match is None:
        return None
    session, file = match["session"], match["file"]
    runtime = Runtime.instance() if Runtime.exists() else None
    mgr = getattr(runtime, "uploaded_file_mgr", None)
    if not isinstance(mgr, MemoryUploadedFileManager) or not runtime.is_active_session(session):
        return None                                   # Streamlit refuses a session that is not live, unread
    if not issued(session, file):
        return 404, NOT_ISSUED
    try:
        length = int(headers.get(b"content-length", b""))
    except ValueError:
        return 411, NO_LENGTH
    with mgr._lock:
        mine = sum(len(f.data) for fid, f in mgr.file_storage.get(session, {}).items() if fid != file)
        everyone = mgr._total_bytes
    if mine + length > SESSION_MB << 20:
        return 413, SESSION_FULL.format(mb=SESSION_MB)
    if everyone + length > HELD_MB << 20:
        return 503, SERVER_FULL.format(mb=HELD_MB)
    return None


async def _guarded(self: PathSecurityMiddleware, scope, receive, send) -> None:
    """Replaces PathSecurityMiddleware.__call__: an upload that must not be read is answered at once (the server
    discards whatever of its body still arrives, unparsed and unkept)."""
    if scope["type"] == "http" and scope.get("method") == "PUT":
        refused = refusal(scope.get("path", ""), dict(scope.get("headers") or ()))
        if refused is not None:
            status, text = refused
            body = text.encode()
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
    await _original["call"](self, scope, receive, send)


def install() -> None:
    """Refuse uploads the server did not ask for, and bound the rest (idempotent)."""
    with _lock:
        if MemoryUploadedFileManager.get_upload_urls is not _get_upload_urls:
            _original["get_upload_urls"] = MemoryUploadedFileManager.get_upload_urls
            MemoryUploadedFileManager.get_upload_urls = _get_upload_urls
        if MemoryUploadedFileManager.remove_session_files is not _remove_session_files:
            _original["remove_session_files"] = MemoryUploadedFileManager.remove_session_files
            MemoryUploadedFileManager.remove_session_files = _remove_session_files
        if PathSecurityMiddleware.__call__ is not _guarded:
            _original["call"] = PathSecurityMiddleware.__call__
            PathSecurityMiddleware.__call__ = _guarded
