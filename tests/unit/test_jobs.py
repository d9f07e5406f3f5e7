"""The process-wide queue of heavy jobs (runtime/job_queue.py), on small child processes (`python -c`, no torch):
at most `slots` children run at once whatever the number asking, the rest wait in order and know their place; a
child cannot use more memory than its bound; cancelling frees the slot and kills the child; a full queue refuses;
an owner whose session is gone loses its jobs. The children report their own pid, limits and times, so the checks
do not rely on the queue's own bookkeeping."""
import os
import sys
import time

import pytest

from runtime import job_queue

PY = sys.executable


def child(code: str) -> list[str]:
    return [PY, "-c", "import json, os, resource, sys, time\n" + code]


def report(extra: str = "") -> list[str]:
    """A child that prints its pid, its start and end (wall clock) and its address-space limit, sleeping between."""
    return child("start = time.time()\n" + extra + "time.sleep(0.25)\n"
                 "print(json.dumps({'pid': os.getpid(), 'start': start, 'end': time.time(), "
                 "'limit': resource.getrlimit(resource.RLIMIT_AS)[0]}), flush=True)")


def wait_all(js, timeout=30.0):
    deadline = time.monotonic() + timeout
    for j in js:
        while not j.finished:
            assert time.monotonic() < deadline, j
            j.wait(0.2)


def most_at_once(spans) -> int:
    """The most intervals (start, end) that overlap at one instant."""
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda x: (x[0], x[1]))
    now = top = 0
    for _, step in events:
        now += step
        top = max(top, now)
    return top


def test_eight_owners_at_once_run_two_at_a_time_in_order_each_with_its_answer():
    q = job_queue.Queue(slots=2, waiting=10, memory_mb=256)
    js = [q.submit(report(), owner=f"session{i}", what="probe") for i in range(8)]
    positions = [j.position for j in js]
    assert positions[:2] == [0, 0] and positions[2:] == [1, 2, 3, 4, 5, 6]      # the first two start at once
    wait_all(js)
    rows = [j.result()[0] for j in js]
    assert all(j.state == job_queue.DONE for j in js)
    assert most_at_once([(r["start"], r["end"]) for r in rows]) <= 2            # the children's own clocks
    started = [j.started_at for j in js]                                       # when each child was spawned
    assert started == sorted(started)                                          # first come, first served
    assert all(r["limit"] == 256 << 20 for r in rows)                           # each child had the bound
    assert q.peak_running == 2 and q.counts() == (0, 0)


def test_a_child_over_its_memory_bound_fails_as_out_of_memory_and_one_within_it_runs():
    q = job_queue.Queue(slots=1, waiting=4, memory_mb=200)
    big = q.submit(child("x = bytearray(400 << 20)\nprint('{}')"), owner="a")
    small = q.submit(child("x = bytearray(50 << 20)\nprint(json.dumps({'n': len(x)}))"), owner="b")
    wait_all([big, small])
    assert big.state == job_queue.FAILED and big.out_of_memory and "MemoryError" in big.error
    with pytest.raises(job_queue.JobError) as e:
        big.result()
    assert e.value.out_of_memory and e.value.memory_mb == 200
    assert small.result() == [{"n": 50 << 20}]


def test_cancel_kills_the_running_child_and_the_next_job_gets_its_slot():
    q = job_queue.Queue(slots=1, waiting=4, memory_mb=None)
    long = q.submit(child("print(json.dumps({'pid': os.getpid()}), flush=True)\ntime.sleep(60)"), owner="a")
    nxt = q.submit(report(), owner="b")
    while not long.rows:
        long.wait(0.2)
    pid = long.rows[0]["pid"]
    assert nxt.state == job_queue.QUEUED and nxt.position == 1
    long.cancel()
    assert long.state == job_queue.CANCELLED
    with pytest.raises(ProcessLookupError):              # the child is gone, not only forgotten
        os.kill(pid, 0)
    wait_all([nxt])
    assert nxt.state == job_queue.DONE


def test_a_queued_job_that_is_cancelled_leaves_the_line_and_the_others_move_up():
    q = job_queue.Queue(slots=1, waiting=4, memory_mb=None)
    first = q.reserve(owner="a")
    b, c = q.reserve(owner="b"), q.reserve(owner="c")
    assert (first.state, b.position, c.position) == (job_queue.RUNNING, 1, 2)
    b.cancel()
    assert b.state == job_queue.CANCELLED and c.position == 1
    first.finish()
    assert c.state == job_queue.RUNNING and q.counts() == (1, 0)
    c.finish()
    assert q.counts() == (0, 0)


def test_a_full_queue_refuses_with_busy_and_counts():
    q = job_queue.Queue(slots=1, waiting=2, memory_mb=None)
    held = [q.reserve(owner=f"s{i}") for i in range(3)]
    with pytest.raises(job_queue.Busy) as e:
        q.reserve(owner="s3")
    assert (e.value.waiting, e.value.running) == (2, 1)
    for j in held:
        j.cancel()
    assert q.counts() == (0, 0)


def test_a_new_job_of_the_same_owner_replaces_its_unfinished_one():
    q = job_queue.Queue(slots=1, waiting=4, memory_mb=None)
    old = q.reserve(owner="s")
    new = q.reserve(owner="s")
    assert old.state == job_queue.CANCELLED and new.state == job_queue.RUNNING
    new.finish()


def test_the_jobs_of_an_owner_whose_session_is_gone_are_cancelled(monkeypatch):
    monkeypatch.setattr(job_queue, "WATCH_S", 0.05)
    q = job_queue.Queue(slots=1, waiting=4, memory_mb=None)
    there = {"s": True}
    running = q.submit(child("time.sleep(60)"), owner="s", alive=lambda: there["s"])
    waiting = q.reserve(owner="t", alive=lambda: there["s"])
    there["s"] = False
    wait_all([running, waiting], timeout=10)
    assert running.state == waiting.state == job_queue.CANCELLED
    assert running.proc.poll() is not None
