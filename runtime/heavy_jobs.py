"""A session's side of the heavy-job queue (job_queue.py): a job belongs to this session; while it waits the page says
"queued, position k", while it runs it shows its progress; when this script run stops (a rerun, another page, the
session closed) the job is cancelled and its slot goes to the next one. A session whose browser is gone has its
jobs cancelled by the queue's own watcher as well.

    job = heavy_jobs.submit(cmd, what=_("the measurement"))     # None (with a notice) when the queue is full
    if job and heavy_jobs.follow(job, progress=lambda j: (len(j.rows) / total, _("…"))).state == job_queue.DONE: ...

    with heavy_jobs.slot(_("the GIF"), where=col) as job:        # in-process work: None when the queue is full
        ...                                                      # runs holding one of the queue's slots

    st.download_button(..., heavy_jobs.queued(make, _("The slide")), ...)   # a download made holding a slot

Who asks: this session (one job waiting per tab), its client (the browser's address: at most PER_CLIENT jobs), and
whether it is a lecturer's (LECTURER, set by the app once a session proved it hosts a class: its jobs wait ahead)."""
import contextlib
import ipaddress
import os
from collections.abc import Callable
from pathlib import Path

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from i18n import N_, _, ngettext
from runtime import job_queue
from runtime.downloads import DownloadError

ROOT = Path(__file__).resolve().parents[1]
POLL_S = 0.4             # how often the notice is refreshed: each refresh is where a stopped run notices it
SERVER_BUSY = N_("The server is busy: {waiting} heavy jobs are waiting and {running} running. Try again in a "
                 "minute.")
SESSION_WAITING = N_("{what} is still waiting for a slot in this tab, and a tab may have one heavy job waiting: try "
                     "again once it has started.")
CLIENT_BUSY = N_("Your browser already has {n} heavy jobs waiting or running on this server, the most one browser "
                 "may have: try again when one of them has finished.")
CANCELLED = N_("{what} was cancelled.")
LECTURER = "_heavy_jobs_lecturer"   # session state: True once the app knows this session hosts a class
TRUSTED_PROXIES = [ipaddress.ip_network(n.strip()) for n in os.environ.get(
    "ATTENTION_LAB_TRUSTED_PROXIES", "127.0.0.0/8,::1/128").split(",") if n.strip()]   # whose X-Forwarded-For counts


def owner() -> str:
    """This session's id (the queue's owner of its jobs); "local" outside a session."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "local"


def client() -> str | None:
    """This browser's address, as the queue bounds a client: the connection's, or behind a trusted proxy (the class
    balancer on loopback) the address it saw (the last X-Forwarded-For, the one the proxy added); None for a browser
    on this machine (one person's own server: not bounded as a client)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return None
    ip = getattr(st.context, "ip_address", None)
    try:
        trusted = ip is None or any(ipaddress.ip_address(ip) in net for net in TRUSTED_PROXIES)
    except ValueError:
        trusted = False
    forwarded = st.context.headers.get_all("X-Forwarded-For") if trusted else []
    last = forwarded[-1].split(",")[-1].strip() if forwarded else ""
    return last or (None if trusted else ip)


def who() -> dict:
    """The queue's arguments naming who asks: session, client and priority."""
    lecturer = bool(st.session_state.get(LECTURER)) if get_script_run_ctx() is not None else False
    return {"session": owner(), "client": client(),
            "priority": job_queue.LECTURER if lecturer else job_queue.EVERYONE}


def alive() -> Callable[[], bool] | None:
    """A check the queue calls to learn whether this session still has a browser (None outside a server)."""
    if not Runtime.exists():
        return None
    runtime, session = Runtime.instance(), owner()
    return lambda: runtime.is_active_session(session)


def limits() -> str:
    """The queue's limits in one sentence, for captions."""
    n, mb = job_queue.QUEUE.slots, job_queue.QUEUE.memory_mb
    if mb:
        return ngettext("At most {slots} heavy job runs at once on this server, for all its users; each child process "
                        "may use {mb:,} MiB of memory.",
                        "At most {slots} heavy jobs run at once on this server, for all its users; each child process "
                        "may use {mb:,} MiB of memory.", n).format(slots=n, mb=mb)
    return ngettext("At most {slots} heavy job runs at once on this server, for all its users.",
                    "At most {slots} heavy jobs run at once on this server, for all its users.", n).format(slots=n)


def busy(e: job_queue.Busy, where=st) -> None:
    where.warning(busy_text(e))


def busy_text(e: job_queue.Busy) -> str:
    """Why a job was not queued, in words for the page."""
    if isinstance(e, job_queue.SessionWaiting):
        return _(SESSION_WAITING).format(what=e.what)
    if isinstance(e, job_queue.ClientBusy):
        return _(CLIENT_BUSY).format(n=e.mine)
    return _(SERVER_BUSY).format(waiting=e.waiting, running=e.running)


def submit(cmd: list[str], *, what: str, memory_mb: int | None = -1, where=st) -> job_queue.Job | None:
    """Queue a child process for this session (memory_mb: -1 the queue's bound, None none); None with a notice in
    `where` when the queue is full."""
    try:
        return job_queue.QUEUE.submit(cmd, owner=owner(), what=what, memory_mb=memory_mb, cwd=ROOT, alive=alive(),
                                      **who())
    except job_queue.Busy as e:
        busy(e, where)
        return None


def queued_text(job: job_queue.Job) -> str:
    running, waiting = job_queue.QUEUE.counts()
    return ngettext("Queued, position {k} of {waiting}: {what} starts when the {slots} slot for heavy jobs frees up "
                    "({running} running now, for every user of this server).",
                    "Queued, position {k} of {waiting}: {what} starts when one of the {slots} slots for heavy jobs "
                    "frees up ({running} running now, for every user of this server).", job_queue.QUEUE.slots).format(
        k=job.position, waiting=waiting, what=job.what, slots=job_queue.QUEUE.slots, running=running)


def follow(job: job_queue.Job, progress: Callable[[job_queue.Job], tuple[float, str]] | None = None, *, where=st,
           until: Callable[[job_queue.Job], bool] = lambda j: j.finished) -> job_queue.Job:
    """Show the job in `where` until `until(job)` (default: it finished): the queued notice while it waits, then
    progress(job) -> (fraction, text) while it runs. If this run stops meanwhile, the job is cancelled."""
    box = where.empty()
    done = False
    try:
        while not until(job):
            if job.state == job_queue.QUEUED:
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


def failure(job: job_queue.Job) -> str:
    """Why a finished job has no result, in words for the page."""
    if job.out_of_memory:
        return _("{what} needed more than the {mb:,} MiB of memory a heavy job may use on this server.").format(
            what=job.what, mb=job.memory_mb)
    if job.timed_out:
        return _("{what} was stopped: it ran longer than the {s:,.0f} s a heavy job may run.").format(
            what=job.what, s=job.timeout_s)
    if job.state == job_queue.CANCELLED:
        return _("{what} was cancelled.").format(what=job.what)
    return _("{what} failed: {why}").format(what=job.what, why=job.error)


@contextlib.contextmanager
def slot(what: str, *, where=st):
    """Hold one of the queue's slots for in-process work in this block, waiting in line (with the queued notice in
    `where`) first; yields the job, or None (with a notice) when the queue is full. The slot is handed back when
    the block ends, however it ends."""
    try:
        job = job_queue.QUEUE.reserve(owner=owner(), what=what, alive=alive(), **who())
    except job_queue.Busy as e:
        busy(e, where)
        yield None
        return
    try:
        follow(job, where=where, until=lambda j: j.state != job_queue.QUEUED)
        if job.state != job_queue.RUNNING:             # cancelled while waiting (its session went away)
            yield None
            return
        yield job
    except BaseException as e:
        job.finish(error=type(e).__name__)
        raise
    finally:
        job.finish()


class QueuedDownload:
    """A download button's callable that makes its file holding one of the queue's slots (for a file that takes a
    while: a slide drawn by the browser), for the session that drew the button; downloads.py runs it on its own
    threads, apart from quick files. Made in the script run (who asks is read then); called at the click, where a
    refusal is a DownloadError the button shows in the session's language."""

    heavy = True

    def __init__(self, make: Callable[[], bytes | str], what: str):
        self.make, self.what = make, what
        self.ask = {"owner": owner() + ":download", "alive": alive(), **who()}

    def __call__(self) -> bytes | str:
        try:
            job = job_queue.QUEUE.reserve(what=self.what, **self.ask)
        except job_queue.SessionWaiting as e:
            raise DownloadError(SESSION_WAITING, what=e.what) from None
        except job_queue.ClientBusy as e:
            raise DownloadError(CLIENT_BUSY, n=e.mine) from None
        except job_queue.Busy as e:
            raise DownloadError(SERVER_BUSY, waiting=e.waiting, running=e.running) from None
        try:
            while job.state == job_queue.QUEUED:
                job.wait(POLL_S)
            if job.state != job_queue.RUNNING:
                raise DownloadError(CANCELLED, what=self.what)
            return self.make()
        finally:
            job.finish()


def queued(make: Callable[[], bytes | str], what: str) -> QueuedDownload:
    """`make` for a download button, run holding a heavy-job slot when clicked (QueuedDownload)."""
    return QueuedDownload(make, what)
