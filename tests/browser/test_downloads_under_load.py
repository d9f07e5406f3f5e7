"""A download clicked in a busy class is fetched (runtime/downloads.py). Streamlit sweeps unreferenced media after
every script run of any session, and a file made on click is unreferenced: the second sweep after it was made
deleted it, so in a class most downloads answered 404. Here 30 other sessions rerun the home page (each every
PACE_S, as students do), while one session clicks the explorer's download buttons 20 times and fetches each file
from the address the server answered once at least SWEEPS other script runs have finished since (what a busy
class does between a click and a browser's fetch on a loaded machine). Every fetch must return the file."""
import threading
import time

from serve import wire

OTHERS = 30
CLICKS = 20
PACE_S = 2.0                  # each other session reruns this often
SWEEPS = 6                    # other script runs finished between a file's making and its fetch
SETTLE_S = 0.3                # a run sweeps just after it says it finished
BUTTONS = ("explorer_file_csv", "explorer_file_json", "explorer_file_grid", "explorer_file_zoom_png")


def rerun_until(url: str, stop: threading.Event, runs: list, ready: threading.Barrier):
    with wire.session(url, timeout=120) as s:
        s.run("")
        ready.wait(timeout=300)
        while not stop.wait(PACE_S):
            s.run("")
            runs.append(1)


def wait_for_runs(runs: list, n: int, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while len(runs) < n and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(runs) >= n, "the other sessions stopped rerunning: the load did not reproduce"


def test_thirty_sessions_rerunning_lose_none_of_twenty_downloads(server_url):
    stop, runs = threading.Event(), []
    ready = threading.Barrier(OTHERS + 1)
    others = [threading.Thread(target=rerun_until, args=(server_url, stop, runs, ready), daemon=True)
              for _ in range(OTHERS)]
    for t in others:
        t.start()
    problems = []
    try:
        with wire.session(server_url, timeout=120) as s:
            msgs = s.run("explorer", "explorer_tab=Downloads")
            ids = {key: wire.widget(msgs, "download_button", key).deferred_file_id for key in BUTTONS}
            ready.wait(timeout=300)
            for i in range(CLICKS):
                key = BUTTONS[i % len(BUTTONS)]
                url, error = s.download(ids[key])
                if error:
                    problems.append(f"{key}: {error}")
                    continue
                wait_for_runs(runs, len(runs) + SWEEPS)
                time.sleep(SETTLE_S)
                status, _, body = wire.get(server_url, url)
                if status != 200 or not body:
                    problems.append(f"{key}: {status} for {url}")
    finally:
        stop.set()
        for t in others:
            t.join(timeout=120)
    assert not problems, f"{len(problems)} of {CLICKS} downloads lost: {problems}"
