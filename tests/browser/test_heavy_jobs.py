"""Heavy work is bounded for the whole server (runtime/job_queue.py, runtime/heavy_jobs.py): eight sessions press
Measure on the masks page at once (N = 256, the sliding-window kernel: a small job, so the test stays short). Every
session gets its answer (the table) or a clear "queued, position k" notice; no more than job_queue.SLOTS measuring
children ever run at once, each under its address-space bound, so their memory together stays under SLOTS × MEMORY_MB;
and once the sessions close, the queued work is dropped and no child is left running."""
import re
import threading
import time
from pathlib import Path

from runtime import job_queue
from tests.browser.wire import elements, session, texts, widget_id

QUERY = "masks_tab=Cost&masks_cost_n=256&masks_cost_methods=blocked+sliding-window+kernel"
QUEUED = re.compile(r"Queued, position (\d+) of (\d+): The measurement starts when one of the (\d+) slots for heavy "
                    r"jobs frees up \((\d+) running now, for every user of this server\)\.")
SESSIONS = 8


def server_pid(url: str) -> int:
    port = url.rsplit(":", 1)[1]
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if proc.name.isdigit() and b"streamlit" in b" ".join(cmd) and f"--server.port={port}".encode() in cmd:
            return int(proc.name)
    raise AssertionError(f"no streamlit server on port {port}")


def measuring_children(server: int) -> dict[int, dict]:
    """pid -> {rss_mib, limit_mib} of the server's children that measure (python -m model.analysis.cost)."""
    out = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            status = (proc / "status").read_text()
            # after the launcher set the bound and became the measurement: python -m model.analysis.cost …
            if f"\nPPid:\t{server}\n" not in status or (proc / "cmdline").read_bytes().split(b"\0")[1:3] != [
                    b"-m", b"model.analysis.cost"]:
                continue
            limits = (proc / "limits").read_text()
        except OSError:
            continue
        rss = re.search(r"VmRSS:\s+(\d+) kB", status)
        limit = re.search(r"Max address space\s+(\S+)", limits)[1]
        out[int(proc.name)] = {"rss_mib": int(rss[1]) / 1024 if rss else 0.0,
                               "limit_mib": None if limit == "unlimited" else int(limit) / 2**20}
    return out


class Sampler(threading.Thread):
    """Samples the server's measuring children every 20 ms: the most at once, their most memory at once, and the
    address-space bound each had."""

    def __init__(self, server: int):
        super().__init__(daemon=True)
        self.server, self.stop, self.most, self.most_rss, self.limits, self.seen = server, False, 0, 0.0, set(), set()

    def run(self):
        while not self.stop:
            now = measuring_children(self.server)
            self.most = max(self.most, len(now))
            self.most_rss = max(self.most_rss, sum(c["rss_mib"] for c in now.values()))
            self.limits |= {c["limit_mib"] for c in now.values()}
            self.seen |= set(now)
            time.sleep(0.02)


def queued_notice(msg) -> bool:
    return (msg.WhichOneof("type") == "delta" and msg.delta.new_element.WhichOneof("type") == "alert"
            and msg.delta.new_element.alert.body.startswith("Queued, position"))


def test_eight_sessions_measuring_at_once_get_answers_or_their_place_and_memory_stays_bounded(server_url):
    server = server_pid(server_url)
    with session(server_url) as s:
        button = widget_id(s.run("masks", QUERY), "masks_cost_go")
    sampler = Sampler(server)
    sampler.start()
    outcome: dict[int, list] = {}
    ready = threading.Barrier(SESSIONS)

    def ask(i: int):
        with session(server_url) as s:
            ready.wait()
            s.start("masks", QUERY, [(button, "trigger_value", True)])
            outcome[i] = s.read(until=queued_notice)          # its answer, or its place in the line
        # leaving the block closes the session: a queued job must be dropped

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    answered = queued = 0
    for i, msgs in outcome.items():
        assert not elements(msgs, "exception"), [e.message for e in elements(msgs, "exception")]
        notices = [QUEUED.fullmatch(t) for t in texts(msgs) if t.startswith("Queued")]
        if notices:
            k, waiting, slots, running = map(int, notices[-1].groups())
            assert 1 <= k <= waiting <= SESSIONS - 1 and slots == job_queue.SLOTS and 1 <= running <= job_queue.SLOTS
            queued += 1
        else:
            assert elements(msgs, "dataframe"), f"session {i} got neither its table nor a queued notice"
            assert not [t for t in texts(msgs) if "failed" in t or "cancelled" in t]
            answered += 1
    assert len(outcome) == SESSIONS and answered >= 1 and queued >= 1, (answered, queued)
    deadline = time.monotonic() + 60                          # closed sessions: their work is dropped
    while measuring_children(server) and time.monotonic() < deadline:
        time.sleep(0.2)
    sampler.stop = True
    sampler.join()
    assert not measuring_children(server)
    assert 1 <= sampler.most <= job_queue.SLOTS, sampler.most
    assert sampler.limits == {job_queue.MEMORY_MB}, sampler.limits         # every child had the bound
    assert sampler.most_rss <= job_queue.SLOTS * job_queue.MEMORY_MB
    assert len(sampler.seen) < SESSIONS                       # queued work of closed sessions never started


def test_a_measurement_is_stopped_with_its_child_when_the_run_that_asked_for_it_stops(server_url):
    server = server_pid(server_url)
    long = "masks_tab=Cost&masks_cost_n=16384&masks_cost_methods=dense+%28no+mask%29"     # tens of seconds
    with session(server_url) as s:
        button = widget_id(s.run("masks", long), "masks_cost_go")
        s.start("masks", long, [(button, "trigger_value", True)])
        deadline = time.monotonic() + 120
        while not measuring_children(server) and time.monotonic() < deadline:
            time.sleep(0.1)
        child = set(measuring_children(server))
        assert child, "the measurement never started"
        after = s.run("masks", long)                      # another run of the page: the one measuring stops
        assert not elements(after, "exception")
        deadline = time.monotonic() + 30
        while set(measuring_children(server)) & child and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not set(measuring_children(server)) & child
        assert not any((Path("/proc") / str(pid)).exists() for pid in child)
