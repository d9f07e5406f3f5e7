"""The server side of the download buttons (runtime/downloads.py), on Streamlit's own media file manager and
deferred-download handler: a click on a button a rerun replaced says "the view changed" (in the session's
language), a file over the limit is refused with its size, a session's downloads run one at a time, and what a
session's downloads hold in the server's memory stays under the limit and is let go after the grace period."""
import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from streamlit.proto.BackMsg_pb2 import BackendOperationRequest
from streamlit.runtime import media_file_manager
from streamlit.runtime.backend_operation_handler import DeferredFileHandler
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from runtime import downloads

MB = 1 << 20


@pytest.fixture
def mgr(monkeypatch):
    downloads.install()
    monkeypatch.setattr(downloads, "DOWNLOAD_MB", 1)
    monkeypatch.setattr(downloads, "GRACE_S", 30.0)
    monkeypatch.setitem(downloads._languages, "s1", "en")
    monkeypatch.setitem(downloads._languages, "s2", "zh")
    return MediaFileManager(MemoryMediaFileStorage("/media"))


def button(mgr, monkeypatch, session: str, make, name: str = "f.bin", where: str = "1.2") -> str:
    """A deferred download of `session` (as st.download_button registers one); returns its id."""
    monkeypatch.setattr(media_file_manager, "_get_session_id", lambda: session)
    return mgr.add_deferred(make, "application/octet-stream", where, name)


def click(mgr, file_id: str, session: str):
    """What the browser's click asks: (url, error message) of the handler's answer."""
    request = BackendOperationRequest(request_id="r", session_id=session)
    request.deferred_file.file_id = file_id
    # its own thread and event loop: a worker that also ran browser tests has Playwright's loop running here
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(asyncio.run, DeferredFileHandler(lambda: mgr).handle(request, session)).result()
    return answer.deferred_file.url or None, answer.error_msg or None


def stored(mgr) -> dict[str, int]:
    return {fid: len(f.content) for fid, f in mgr._storage._files_by_id.items()}


def test_a_click_on_a_button_a_rerun_replaced_says_the_view_changed(mgr, monkeypatch):
    old = button(mgr, monkeypatch, "s1", lambda: b"old view")
    mgr.clear_session_refs("s1")                    # the rerun: the button is drawn again, the old id dropped
    new = button(mgr, monkeypatch, "s1", lambda: b"new view")
    mgr.remove_orphaned_files()
    assert click(mgr, old, "s1") == (None, "The view changed since this button was drawn: click it again.")
    url, error = click(mgr, new, "s1")
    assert error is None and mgr._storage.get_file(url.rsplit("/", 1)[1]).content == b"new view"
    assert click(mgr, new, "s2") == (None, "视图在这个按钮画出之后变了：请再点一次。")      # not s2's: in its language


def test_a_file_over_the_limit_is_refused_with_its_size(mgr, monkeypatch):
    big = button(mgr, monkeypatch, "s1", lambda: b"x" * (3 * MB // 2))
    assert click(mgr, big, "s1") == (None, "This file would be 1.5 MiB; a download may be at most 1 MiB on this "
                                           "server.")
    assert stored(mgr) == {}


def test_a_sessions_downloads_stay_under_the_limit_and_are_let_go_after_the_grace(mgr, monkeypatch):
    theirs = button(mgr, monkeypatch, "s2", lambda: b"b" * (MB // 2), where="9")
    other_url, _ = click(mgr, theirs, "s2")
    urls = []
    for i in range(3):                               # three 0.4 MB files, one after the other, within the grace
        fid = button(mgr, monkeypatch, "s1", lambda i=i: bytes([i]) * (2 * MB // 5), name=f"f{i}.bin", where=f"{i}")
        url, error = click(mgr, fid, "s1")
        assert error is None
        urls.append(url.rsplit("/", 1)[1].split(".")[0])
        assert downloads.held_bytes("s1") <= MB
    assert urls[0] not in stored(mgr) and urls[1] in stored(mgr) and urls[2] in stored(mgr)   # oldest let go
    monkeypatch.setattr(downloads, "GRACE_S", 0.05)
    last = button(mgr, monkeypatch, "s1", lambda: b"last", name="last.bin", where="4")
    assert click(mgr, last, "s1")[1] is None
    time.sleep(1.5)                                  # past the grace: nothing of s1's is held any more
    assert downloads.held_bytes("s1") == 0 and not set(urls) & set(stored(mgr))
    assert other_url.rsplit("/", 1)[1].split(".")[0] in stored(mgr)                      # s2's file untouched


def test_a_sessions_downloads_are_made_one_at_a_time(mgr, monkeypatch):
    started, release = threading.Event(), threading.Event()

    def slow():
        started.set()
        release.wait(10)
        return b"slow"

    first = button(mgr, monkeypatch, "s1", slow, where="1")
    second = button(mgr, monkeypatch, "s1", lambda: b"quick", where="2")
    answers = {}
    worker = threading.Thread(target=lambda: answers.setdefault("first", click(mgr, first, "s1")))
    worker.start()
    started.wait(10)
    assert click(mgr, second, "s1") == (None, "Your previous download is still being made: click again when it is "
                                              "done.")
    release.set()
    worker.join(10)
    assert answers["first"][1] is None
    assert click(mgr, second, "s1")[1] is None
