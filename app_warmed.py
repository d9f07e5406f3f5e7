"""The app, warm before its first visitor: `streamlit run app_warmed.py` serves app.py (the same pages, the same
settings) and answers its health check (/_stcore/health, which a browser asks before it connects) with "ok" only
once one session of its own has opened home and the explorer, so the models are loaded and the first runs are
cached before anyone waits for them. Until then the check answers 503 "warming up" and a browser shows
Streamlit's own "please wait". Each session's first view of a page is drawn light (runtime/first_view.py: images
first, the interactive charts a moment later). The class setup starts its replicas the same way
(serve/replicas.py)."""
import os
import socket
import sys
import threading
import time
from contextlib import asynccontextmanager

from starlette.middleware import Middleware
from streamlit import config
from streamlit.starlette import App

from runtime.first_view import LIGHT_ENV
from serve import replicas

HEALTH = "/_stcore/health"
WARMING = b"warming up"
READY = threading.Event()             # set once the warm-up session has run (or failed: the app serves anyway)


class WaitForWarmUp:
    """ASGI middleware: the health check says 503 until READY; every other request passes."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["path"].endswith(HEALTH) and not READY.is_set():
            await send({"type": "http.response.start", "status": 503,
                        "headers": [(b"content-type", b"text/plain"), (b"retry-after", b"1")]})
            await send({"type": "http.response.body", "body": WARMING})
            return
        await self.app(scope, receive, send)


def warm_up(timeout: float = 300) -> None:
    """Once the server listens, open home and the explorer in one session (serve.replicas.warm), then set READY."""
    port = int(config.get_option("server.port"))
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        for problem in replicas.warm(url, timeout=timeout):
            print(f"warm-up: {problem}", file=sys.stderr, flush=True)
    except Exception as e:                          # noqa: BLE001 - a failed warm-up must not keep the app closed
        print(f"warm-up failed, serving cold: {e!r}", file=sys.stderr, flush=True)
    finally:
        READY.set()


@asynccontextmanager
async def lifespan(_app):
    threading.Thread(target=warm_up, name="warm-up", daemon=True).start()
    yield


os.environ.setdefault(LIGHT_ENV, "1")
app = App("app.py", lifespan=lifespan, middleware=[Middleware(WaitForWarmUp)])
