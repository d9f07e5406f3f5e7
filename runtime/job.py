"""One piece of heavy work in the queue (job_queue.py) and the refusals of a queue that may not take one more.

A job is a child process (its JSON lines read into `rows`) or in-process work that holds a slot; its state goes
QUEUED -> RUNNING -> DONE | FAILED | CANCELLED (or QUEUED -> CANCELLED)."""
import collections
import subprocess
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from runtime.job_queue import Queue

LECTURER, EVERYONE = 0, 1                                                 # priorities: lower waits ahead
QUEUED, RUNNING, DONE, FAILED, CANCELLED = "queued", "running", "done", "failed", "cancelled"
FINISHED = (DONE, FAILED, CANCELLED)


class Busy(RuntimeError):
    """The queue is full: `waiting` jobs wait already, `running` run."""

    def __init__(self, waiting: int, running: int):
        super().__init__(f"{waiting} heavy jobs are waiting and {running} running")
        self.waiting, self.running = waiting, running


class SessionWaiting(Busy):
    """This session already has a job waiting (`what`): one waits per session."""

    def __init__(self, what: str, waiting: int, running: int):
        super().__init__(waiting, running)
        self.what = what


class ClientBusy(Busy):
    """This client (address) already has `mine` jobs waiting or running, the most one may have."""

    def __init__(self, mine: int, waiting: int, running: int):
        super().__init__(waiting, running)
        self.mine = mine


class JobError(RuntimeError):
    """A job that did not finish: state FAILED or CANCELLED; out_of_memory when it hit its memory bound."""

    def __init__(self, job: "Job"):
        super().__init__(job.error or job.state)
        self.state, self.out_of_memory, self.memory_mb = job.state, job.out_of_memory, job.memory_mb


class Job:
    """One piece of heavy work in the queue. Read its fields; change it only through its methods."""

    def __init__(self, queue: "Queue", ident: int, owner: str, what: str, cmd: list[str] | None,
                 memory_mb: int | None, timeout_s: float | None, cwd, alive: Callable[[], bool] | None,
                 session: str | None = None, client: str | None = None, priority: int = EVERYONE):
        self.queue, self.id, self.owner, self.what = queue, ident, owner, what
        self.session, self.client, self.priority = session, client, priority
        self.cmd, self.memory_mb, self.timeout_s, self.cwd, self.alive = cmd, memory_mb, timeout_s, cwd, alive
        self.state = QUEUED
        self.rows: list = []                   # the JSON objects the child printed, in order
        self.error: str | None = None
        self.out_of_memory = False
        self.returncode: int | None = None
        self.cancelled: str | None = None       # why, once cancel() was asked
        self.timed_out = False                  # cancelled for running longer than timeout_s
        self.queued_at, self.started_at, self.finished_at = time.monotonic(), None, None
        self.proc: subprocess.Popen | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=40)

    def __repr__(self):
        return f"Job({self.id}, {self.what!r}, owner={self.owner!r}, {self.state})"

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    @property
    def position(self) -> int:
        """k ≥ 1 while waiting (1 = next to start), 0 otherwise."""
        return self.queue.position(self)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until this job changes (a state, a row, its place in the queue) or `timeout` s pass; True if it
        changed."""
        return self.queue._wait(self, timeout)

    def cancel(self, why: str = "cancelled") -> None:
        """Leave the queue, or stop the running child (its process group) or hand back the slot (in-process)."""
        self.queue._cancel(self, why)

    def finish(self, error: str | None = None) -> None:
        """An in-process job (`reserve`) is done with its slot: DONE, or FAILED with `error`."""
        self.queue._finish(self, FAILED if error else DONE, error)

    def result(self) -> list:
        """The rows of a DONE job; JobError otherwise (call once finished)."""
        if self.state != DONE:
            raise JobError(self)
        return list(self.rows)

    def stream(self, poll_s: float = 0.5):
        """Yield the rows as the child prints them, until it finishes; then JobError unless it is DONE. Closing the
        generator before that cancels the job."""
        seen = 0
        try:
            while True:
                finished = self.finished
                while seen < len(self.rows):
                    yield self.rows[seen]
                    seen += 1
                if finished:
                    break
                self.wait(poll_s)
        finally:
            self.cancel("no one reads its rows")
        if self.state != DONE:
            raise JobError(self)
