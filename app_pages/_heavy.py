"""The page side of the heavy-job queue (model.jobs): a job belongs to this session; while it waits the page says
"queued, position k", while it runs it shows its progress; when this script run stops (a rerun, another page, the
session closed) the job is cancelled and its slot goes to the next one. A session whose browser is gone has its
jobs cancelled by the queue's own watcher as well.

    job = _heavy.submit(cmd, what=_("the measurement"))        # None (with a notice) when the queue is full
    if job and _heavy.follow(job, progress=lambda j: (len(j.rows) / total, _("…"))).state == jobs.DONE: ...

    with _heavy.slot(_("the GIF"), where=col) as job:           # in-process work: None when the queue is full
        ...                                                     # runs holding one of the queue's slots"""
import contextlib
from collections.abc import Callable
from pathlib import Path

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from i18n import _, ngettext
from model import jobs

ROOT = Path(__file__).resolve().parents[1]
POLL_S = 0.4             # how often the notice is refreshed: each refresh is where a stopped run notices it


def owner() -> str:
    """This session's id (the queue's owner of its jobs); "local" outside a session."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "local"


def alive() -> Callable[[], bool] | None:
    """A check the queue calls to learn whether this session still has a browser (None outside a server)."""
    if not Runtime.exists():
        return None
    runtime, session = Runtime.instance(), owner()
    return lambda: runtime.is_active_session(session)


def limits() -> str:
    """The queue's limits in one sentence, for captions."""
    n, mb = jobs.QUEUE.slots, jobs.QUEUE.memory_mb
    if mb:
        return ngettext("At most {slots} heavy job runs at once on this server, for all its users; each child process "
                        "may use {mb:,} MiB of memory.",
                        "At most {slots} heavy jobs run at once on this server, for all its users; each child process "
                        "may use {mb:,} MiB of memory.", n).format(slots=n, mb=mb)
    return ngettext("At most {slots} heavy job runs at once on this server, for all its users.",
                    "At most {slots} heavy jobs run at once on this server, for all its users.", n).format(slots=n)


def busy(e: jobs.Busy, where=st) -> None:
    where.warning(_("The server is busy: {waiting} heavy jobs are waiting and {running} running. Try again in a "
                    "minute.").format(waiting=e.waiting, running=e.running))


def submit(cmd: list[str], *, what: str, memory_mb: int | None = -1, where=st) -> jobs.Job | None:
    """Queue a child process for this session (memory_mb: -1 the queue's bound, None none); None with a notice in
    `where` when the queue is full."""
    try:
        return jobs.QUEUE.submit(cmd, owner=owner(), what=what, memory_mb=memory_mb, cwd=ROOT, alive=alive())
    except jobs.Busy as e:
        busy(e, where)
        return None


def queued_text(job: jobs.Job) -> str:
    running, waiting = jobs.QUEUE.counts()
    return ngettext("Queued, position {k} of {waiting}: {what} starts when the {slots} slot for heavy jobs frees up "
                    "({running} running now, for every user of this server).",
                    "Queued, position {k} of {waiting}: {what} starts when one of the {slots} slots for heavy jobs "
                    "frees up ({running} running now, for every user of this server).", jobs.QUEUE.slots).format(
        k=job.position, waiting=waiting, what=job.what, slots=jobs.QUEUE.slots, running=running)


def follow(job: jobs.Job, progress: Callable[[jobs.Job], tuple[float, str]] | None = None, *, where=st,
           until: Callable[[jobs.Job], bool] = lambda j: j.finished) -> jobs.Job:
    """Show the job in `where` until `until(job)` (default: it finished): the queued notice while it waits, then
    progress(job) -> (fraction, text) while it runs. If this run stops meanwhile, the job is cancelled."""
    box = where.empty()
    done = False
    try:
        while not until(job):
            if job.state == jobs.QUEUED:
                box.info(queued_text(job), icon=":material/hourglass_top:")
            elif progress is not None:
                fraction, text = progress(job)
                box.progress(min(max(fraction, 0.0), 1.0), text=text)
            else:
                box.caption(_("{what} is running…").format(what=job.what))
            job.wait(POLL_S)
        done = True
    finally:
        if not done:                                   # a rerun, another page or a closed session stopped us
            job.cancel("the session's run stopped")
    box.empty()
    return job


def failure(job: jobs.Job) -> str:
    """Why a finished job has no result, in words for the page."""
    if job.out_of_memory:
        return _("{what} needed more than the {mb:,} MiB of memory a heavy job may use on this server.").format(
            what=job.what, mb=job.memory_mb)
    if job.timed_out:
        return _("{what} was stopped: it ran longer than the {s:,.0f} s a heavy job may run.").format(
            what=job.what, s=job.timeout_s)
    if job.state == jobs.CANCELLED:
        return _("{what} was cancelled.").format(what=job.what)
    return _("{what} failed: {why}").format(what=job.what, why=job.error)


@contextlib.contextmanager
def slot(what: str, *, where=st):
    """Hold one of the queue's slots for in-process work in this block, waiting in line (with the queued notice in
    `where`) first; yields the job, or None (with a notice) when the queue is full. The slot is handed back when
    the block ends, however it ends."""
    try:
        job = jobs.QUEUE.reserve(owner=owner(), what=what, alive=alive())
    except jobs.Busy as e:
        busy(e, where)
        yield None
        return
    try:
        follow(job, where=where, until=lambda j: j.state != jobs.QUEUED)
        if job.state != jobs.RUNNING:                  # cancelled while waiting (its session went away)
            yield None
            return
        yield job
    except BaseException as e:
        job.finish(error=type(e).__name__)
        raise
    finally:
        job.finish()
