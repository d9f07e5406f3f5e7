"""Plotly figures to PNG or SVG bytes, drawn by Plotly.js itself in headless Chromium through kaleido.

One browser is started on the first render and kept for the whole process (starting one costs seconds, a render
after that well under one); renders are taken one at a time. A browser that fails is closed and the next render
starts a fresh one."""
import asyncio
import atexit
import functools
import os
import threading

import plotly.graph_objects as go

from i18n import N_, _

START_TIMEOUT_S = 90         # a cold start on a busy 2-core machine takes ~15 s
RENDER_TIMEOUT_S = 60
NO_BROWSER = N_("Slide exports are drawn by Chromium, which was not found on the server. Install it (Debian: "
                "`apt-get install chromium`) or set BROWSER_PATH to a Chrome or Chromium; the chart's own camera "
                "button still saves a PNG.")


class RenderError(RuntimeError):
    """The figure could not be drawn; the message says why, in words for the page."""


def browser_path() -> str | None:
    """The Chrome or Chromium kaleido would start (BROWSER_PATH first, then the usual names), or None.
    Looked up once per BROWSER_PATH value (a search costs ~5 ms, and every chart asks on every run)."""
    return _find_browser(os.environ.get("BROWSER_PATH"))


@functools.lru_cache(maxsize=4)
def _find_browser(_env: str | None) -> str | None:
    from choreographer.browsers.chromium import Chromium
    path = Chromium.find_browser(skip_local=False)
    return path if path and os.path.isfile(path) and os.access(path, os.X_OK) else None


class _Browser:
    """One kaleido browser on its own event loop thread, shared by every caller of render()."""

    def __init__(self):
        self.lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.kaleido = None

    def _run(self, coroutine, timeout: float):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def _start(self):
        import kaleido

        async def open_browser():
            k = kaleido.Kaleido(n=1, timeout=RENDER_TIMEOUT_S, mathjax=False)   # no MathJax: it loads from a CDN
            await k.open()
            return k

        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="kaleido", daemon=True).start()
        try:
            self.kaleido = self._run(open_browser(), START_TIMEOUT_S)
        except BaseException:
            self.close()
            raise

    def render(self, spec: dict, opts: dict) -> bytes:
        with self.lock:
            if self.kaleido is None:
                self._start()
            try:
                return self._run(self.kaleido.calc_fig(spec, opts=opts), RENDER_TIMEOUT_S + 10)
            except BaseException:
                self.close()                # a browser in an unknown state: the next render starts afresh
                raise

    def close(self):
        if self.kaleido is not None and self.loop is not None:
            try:
                self._run(self.kaleido.close(), 15)
            except Exception:  # noqa: BLE001 (closing a browser that already died)
                pass
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.loop.stop)
        self.kaleido = self.loop = None


_BROWSER = _Browser()
atexit.register(_BROWSER.close)


def render(fig: go.Figure, *, format: str, width: int, height: int, scale: float = 1) -> bytes:
    """fig -> PNG or SVG bytes of width·scale × height·scale pixels (the SVG: width × height units).
    Raises RenderError with a readable message when no browser is found or the drawing fails."""
    if format not in ("png", "svg"):
        raise ValueError(f"format must be png or svg, not {format!r}")
    if browser_path() is None:
        raise RenderError(_(NO_BROWSER))
    opts = dict(format=format, width=int(width), height=int(height), scale=scale)
    try:
        return _BROWSER.render(fig.to_plotly_json(), opts)
    except Exception as e:  # noqa: BLE001 (kaleido's and the browser's errors, all told the same way)
        raise RenderError(_("The figure could not be drawn ({why}).").format(why=f"{type(e).__name__}: {e}")) from e


def close() -> None:
    """Stop the shared browser (the next render starts a new one)."""
    with _BROWSER.lock:
        _BROWSER.close()
