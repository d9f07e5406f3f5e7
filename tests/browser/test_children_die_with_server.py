"""A server killed outright (SIGKILL: the out-of-memory killer, a crashed replica) leaves no work running
(runtime/job_queue.py): a measurement child and the browser that draws slide exports had been reparented to init
and ran on (a measurement for ~85 s at up to 2.3 GB, outside any slot). Here a real server starts a long
measurement and renders a slide, is killed, and every process it had started is gone within seconds."""
import os
import signal
import time
from pathlib import Path

from harness.server import streamlit_server
from serve import wire
from tests.browser.test_heavy_jobs import measuring_children, server_pid

LONG = "masks_tab=Cost&masks_cost_n=16384&masks_cost_methods=dense+%28no+mask%29"     # tens of seconds
GONE_WITHIN_S = 10


def descendants(pid: int) -> set[int]:
    parent = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parent[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    out, todo = set(), [pid]
    while todo:
        here = todo.pop()
        kids = [c for c, pp in parent.items() if pp == here]
        out.update(kids)
        todo += kids
    return out


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_killed_server_leaves_no_measurement_or_slide_browser_running(tmp_path):
    with streamlit_server(tmp_path / "server.log") as url:
        server = server_pid(url)
        with wire.session(url, timeout=180) as s:
            slide = next(w.deferred_file_id for w in wire.elements(s.run("explorer"), "download_button")
                         if w.id.endswith("_slide_png"))
            _, error = s.download(slide)                      # starts the browser that draws slides
            assert not error, error
            button = wire.widget_id(s.run("masks", LONG), "masks_cost_go")
            s.start("masks", LONG, [(button, "trigger_value", True)])
            deadline = time.monotonic() + 120
            while not measuring_children(server) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert measuring_children(server), "the measurement never started"
            started = descendants(server)
            os.kill(server, signal.SIGKILL)
            deadline = time.monotonic() + GONE_WITHIN_S
            while any(running(p) for p in started) and time.monotonic() < deadline:
                time.sleep(0.2)
    left = {p: Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ")[:80] for p in started if running(p)}
    assert not left, left
