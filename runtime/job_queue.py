"""Heavy work, bounded for the whole server process: one queue that every long job goes through (the cost
measurement, large exports, a training run), whichever session asks.

- at most SLOTS jobs run at once; the others wait in order, each knowing its place (`job.position`: 1 = next);
  at most WAITING wait, beyond that `submit` raises Busy;
- a job (job.py) is a child process (`submit`) whose address space is limited to its memory bound, or in-process
  work that holds a slot (`reserve`, e.g. drawing a GIF);
- one unfinished job per owner (a session, or a session's lab): a new one replaces the old; `cancel` takes a job
  out of the queue or kills its child (its whole process group), and the slot goes to the next one; an owner that
  `alive` reports gone has its jobs cancelled within a second;
- fair to a class: a session (a browser tab, whatever its owners) has at most one job waiting (SessionWaiting); a
  client (an address) at most PER_CLIENT jobs waiting or running (ClientBusy); a lecturer's job (priority
  LECTURER, given only to a session that proved it hosts a class) waits ahead of everyone else's and is never
  turned away for a full line;
- a child dies with the server, however the server ends (job_children.py: how it is started, bounded and killed).

    job = QUEUE.submit([sys.executable, "-m", "model.analysis.cost", ...], owner=session_id, what="cost")
    while not job.finished:
        job.wait(0.5)          # True when something changed: job.state, job.position, job.rows (JSON lines so far)
    job.result()               # the rows, or JobError with the reason (failed, cancelled, over its memory bound)
    for row in job.stream(): ...                      # or each row as it comes

The child writes one JSON object per line on stdout for its progress and results; other lines are ignored, and
the end of its stderr becomes the error message when it fails. Callers need only this module: it names job.py's
Job, its states, priorities and refusals too."""
import collections
import itertools
import json
import os
import subprocess
import threading
import time
from collections.abc import Callable

from runtime import job_children
from runtime.job import (
    CANCELLED,
    DONE,
    EVERYONE,
    FAILED,
    FINISHED,
    LECTURER,
    QUEUED,
    RUNNING,
    Busy,
    ClientBusy,
    Job,
    JobError,
    SessionWaiting,
)

__all__ = ["QUEUE", "Queue", "Job", "Busy", "SessionWaiting", "ClientBusy", "JobError", "LECTURER", "EVERYONE",
           "QUEUED", "RUNNING", "DONE", "FAILED", "CANCELLED", "FINISHED", "SLOTS", "WAITING", "MEMORY_MB",
           "TIMEOUT_S", "PER_CLIENT"]

SLOTS = int(os.environ.get("ATTENTION_LAB_HEAVY_JOBS", "2"))              # jobs running at once, whole process
WAITING = int(os.environ.get("ATTENTION_LAB_JOBS_WAITING", "32"))         # jobs waiting at most
MEMORY_MB = int(os.environ.get("ATTENTION_LAB_JOB_MEMORY_MB", "4096"))    # address space of one child, MiB
TIMEOUT_S = 900                                                           # a child running longer is stopped
PER_CLIENT = int(os.environ.get("ATTENTION_LAB_JOBS_PER_CLIENT", "2"))    # jobs one address may have in line
WATCH_S = 1.0                                                             # how often owners are checked
ROWS_MAX = 10_000                                                         # JSON lines kept per job


class Queue:
    """The process-wide queue: `slots` jobs run at once, `waiting` at most wait, in order of priority then
    arrival; `per_client` jobs at most per client (0: no bound)."""

    def __init__(self, slots: int = SLOTS, waiting: int = WAITING, memory_mb: int | None = MEMORY_MB,
                 per_client: int = PER_CLIENT):
        self.slots, self.max_waiting, self.memory_mb = max(1, slots), max(0, waiting), memory_mb
        self.per_client = max(0, per_client)
        self._changed = threading.Condition()
        self._waiting: collections.deque[Job] = collections.deque()
        self._running: list[Job] = []
        self._ids = itertools.count(1)
        self._version = 0                     # bumped on every change: wait() compares it
        self._watcher: threading.Thread | None = None
        self.peak_running = 0                 # the most jobs ever running at once (for tests and the benchmark)

    # ---- asking ----
    def submit(self, cmd: list[str], *, owner: str, what: str = "job", memory_mb: int | None = -1,
               timeout_s: float | None = TIMEOUT_S, cwd=None, alive: Callable[[], bool] | None = None,
               session: str | None = None, client: str | None = None, priority: int = EVERYONE) -> Job:
        """Queue the child process `cmd` (argv; cmd[0] an executable path) for `owner`; memory_mb: its address
        space in MiB (-1: the queue's bound; None: unlimited, as CUDA needs). session, client: who asks (None: not
        bounded as one); priority: LECTURER or EVERYONE. Raises Busy (SessionWaiting, ClientBusy) when it may
        not wait."""
        memory_mb = self.memory_mb if memory_mb == -1 else memory_mb
        return self._add(Job(self, 0, owner, what, list(cmd), memory_mb, timeout_s, cwd, alive, session, client,
                             priority))

    def reserve(self, *, owner: str, what: str = "job", alive: Callable[[], bool] | None = None,
                session: str | None = None, client: str | None = None, priority: int = EVERYONE) -> Job:
        """Queue in-process work: once job.state is RUNNING it holds a slot until job.finish() or job.cancel()."""
        return self._add(Job(self, 0, owner, what, None, None, None, None, alive, session, client, priority))

    def counts(self) -> tuple[int, int]:
        """(running, waiting) now."""
        with self._changed:
            return len(self._running), len(self._waiting)

    def position(self, job: Job) -> int:
        with self._changed:
            try:
                return self._waiting.index(job) + 1
            except ValueError:
                return 0

    def cancel_owner(self, owner: str, why: str = "cancelled") -> int:
        """Cancel every unfinished job of `owner`; returns how many."""
        with self._changed:
            mine = [j for j in (*self._waiting, *self._running) if j.owner == owner]
        for job in mine:
            job.cancel(why)
        return len(mine)

    # ---- inside ----
    def _add(self, job: Job) -> Job:
        self.cancel_owner(job.owner, "replaced by a newer job")
        with self._changed:
            counts = len(self._waiting), len(self._running)
            mine = next((j for j in self._waiting if job.session is not None and j.session == job.session), None)
            if mine is not None:
                raise SessionWaiting(mine.what, *counts)
            theirs = sum(job.client is not None and j.client == job.client for j in (*self._waiting, *self._running))
            if self.per_client and theirs >= self.per_client:
                raise ClientBusy(theirs, *counts)
            if job.priority > LECTURER and counts[0] >= self.max_waiting and counts[1] >= self.slots:
                raise Busy(*counts)
            job.id = next(self._ids)
            ahead = sum(j.priority <= job.priority for j in self._waiting)
            self._waiting.insert(ahead, job)
            self._bump()
            self._start_watcher()
        self._dispatch()
        return job

    def _bump(self):
        self._version += 1
        self._changed.notify_all()

    def _wait(self, job: Job, timeout: float | None) -> bool:
        with self._changed:
            seen = self._version
            if job.finished:
                return False
            return self._changed.wait_for(lambda: self._version != seen, timeout)

    def _dispatch(self):
        """Start waiting jobs while slots are free."""
        while True:
            with self._changed:
                if not self._waiting or len(self._running) >= self.slots:
                    return
                job = self._waiting.popleft()
                job.state, job.started_at = RUNNING, time.monotonic()
                self._running.append(job)
                self.peak_running = max(self.peak_running, len(self._running))
                self._bump()
            if job.cmd is not None:
                self._start_process(job)

    def _start_process(self, job: Job):
        try:
            job.proc = job_children.start(job.cmd, job.memory_mb, job.cwd)
        except OSError as e:
            self._finish(job, FAILED, f"could not start: {e}")
            return
        threading.Thread(target=self._read_stderr, args=(job,), name=f"job{job.id}-err", daemon=True).start()
        threading.Thread(target=self._follow, args=(job,), name=f"job{job.id}", daemon=True).start()

    def _read_stderr(self, job: Job):
        for line in job.proc.stderr:
            job._stderr.append(line.rstrip("\n")[-500:])

    def _follow(self, job: Job):
        """Read the child's JSON lines until it exits, then finish the job and free its slot."""
        for line in job.proc.stdout:
            if line.startswith("{") and len(job.rows) < ROWS_MAX:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                with self._changed:
                    job.rows.append(row)
                    self._bump()
        code = job.proc.wait()
        job.returncode = code
        if job.cancelled is not None:
            self._finish(job, CANCELLED, job.cancelled)
            return
        if code == 0:
            self._finish(job, DONE, None)
            return
        tail = "\n".join(job._stderr)
        job.out_of_memory = job.memory_mb is not None and job_children.out_of_memory(tail)
        self._finish(job, FAILED, job_children.last_line(tail) or f"exit status {code}")

    def _finish(self, job: Job, state: str, error: str | None):
        with self._changed:
            if job.finished:
                return
            job.state, job.error, job.finished_at = state, error, time.monotonic()
            if job in self._running:
                self._running.remove(job)
            elif job in self._waiting:
                self._waiting.remove(job)
            self._bump()
        self._dispatch()

    def _cancel(self, job: Job, why: str):
        with self._changed:
            if job.finished:
                return
            job.cancelled, proc = why, job.proc
        if proc is not None and proc.poll() is None:
            job_children.kill_group(proc)
            try:
                proc.wait(timeout=10)                  # its memory is freed before the slot is handed on
            except subprocess.TimeoutExpired:
                pass
        self._finish(job, CANCELLED, why)

    def _start_watcher(self):
        if self._watcher is None or not self._watcher.is_alive():
            self._watcher = threading.Thread(target=self._watch, name="jobs-watch", daemon=True)
            self._watcher.start()

    def _watch(self):
        """Cancel the jobs of owners gone and the children over their time; ends when the queue is empty."""
        while True:
            time.sleep(WATCH_S)
            with self._changed:
                jobs = [*self._waiting, *self._running]
            if not jobs:
                with self._changed:
                    if not self._waiting and not self._running:
                        self._watcher = None
                        return
                continue
            now = time.monotonic()
            for job in jobs:
                try:
                    gone = job.alive is not None and not job.alive()
                except Exception:
                    gone = False
                if gone:
                    job.cancel("its session ended")
                elif job.timeout_s is not None and job.started_at is not None and now - job.started_at > job.timeout_s:
                    job.timed_out = True
                    job.cancel(f"took longer than {job.timeout_s:.0f} s")


QUEUE = Queue()          # the one every heavy job of this process goes through
