"""The Streamlit runtime of a shared server, guarded and bounded: what a client may send, what the server keeps, the
heavy work it runs. Written against private internals of one Streamlit release (version.py); `install()` refuses
any other release before touching them.

  version.py        the Streamlit release the patches are written for, and the refusal
  server_guards.py  no client clears the shared caches or reads the metrics of others
  input_checks.py   a widget value no widget offers is refused before callbacks or pages read it
  link_values.py    a link's value read only by its bound widget, named in the session's language, checked
  downloads.py      download clicks: a race with a rerun, one at a time, bounded bytes, the session's language
  uploads.py        uploads only to file ids the server issued, bounded per session and for the process
  memory.py         what a long session lets go of at every run; the heap and the collector tuned
  job_queue.py      the process-wide queue of heavy jobs: child processes under a memory bound (no Streamlit)
  job.py            one job in that queue, its states, and the refusals of a full line
  job_children.py   a job's child process: started by one thread, bounded, dying with the server
  heavy_jobs.py     a session's side of that queue: its jobs, their place in line and progress
  first_view.py     a class's light first view: images first, then the interactive charts

Imports Streamlit, the standard library and i18n; never app_pages or model (model work reaches the queue as a
command line, or runs in the caller while holding a slot)."""
from runtime import version


def install() -> None:
    """At the start of every script run (app.py, before any page module is imported): refuse a Streamlit release
    the patches were not written for, patch the server (once per process), and let go of what earlier runs left."""
    version.check()
    from runtime import (  # private internals: after the check
        downloads,
        input_checks,
        link_values,
        memory,
        server_guards,
        uploads,
    )
    server_guards.install()
    input_checks.install()
    link_values.install()
    downloads.install()
    uploads.install()
    memory.bound_heap_fragmentation()
    memory.forget_stale_widgets()
    memory.release_freed_heap()
