"""What runtime/downloads.py holds for the browsers, on Streamlit's own media file manager: a file made on click
survives Streamlit's sweeps (one after every script run of any session) until its grace has passed, and all
sessions' made files together stay under HELD_MB: a click past it is refused with a message."""
import time

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from runtime import downloads
from tests.unit.test_downloads import MB, button, click, stored


@pytest.fixture
def mgr(monkeypatch):
    downloads.install()
    monkeypatch.setattr(downloads, "DOWNLOAD_MB", 1)
    monkeypatch.setattr(downloads, "HELD_MB", 1)
    monkeypatch.setattr(downloads, "GRACE_S", 30.0)
    monkeypatch.setitem(downloads._languages, "s1", "en")
    monkeypatch.setitem(downloads._languages, "s2", "zh")
    return MediaFileManager(MemoryMediaFileStorage("/media"))


def test_a_made_file_survives_other_sessions_sweeps_until_its_grace_has_passed(mgr, monkeypatch):
    fid = button(mgr, monkeypatch, "s1", lambda: b"weights")
    url, error = click(mgr, fid, "s1")
    made = url.rsplit("/", 1)[1].split(".")[0]
    for _ in range(5):                       # five other script runs end (Streamlit deleted it at the second)
        mgr.remove_orphaned_files()
    assert error is None and stored(mgr) == {made: len(b"weights")}
    monkeypatch.setattr(downloads, "GRACE_S", 0.05)
    time.sleep(0.1)
    downloads._let_go(mgr, "s1")
    mgr.remove_orphaned_files()
    assert stored(mgr) == {}


def test_a_click_past_what_the_server_holds_for_everyone_is_refused_with_a_message(mgr, monkeypatch):
    theirs = button(mgr, monkeypatch, "s2", lambda: b"b" * (3 * MB // 4), where="9")
    assert click(mgr, theirs, "s2")[1] is None
    mine = button(mgr, monkeypatch, "s1", lambda: b"a" * (MB // 2))
    assert click(mgr, mine, "s1") == (None, "The server is holding 1 MiB of other users' downloads just now: click "
                                            "again in a few seconds.")
    assert sorted(stored(mgr).values()) == [3 * MB // 4]          # the refused file is not kept
