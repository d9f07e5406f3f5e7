"""A real `streamlit run` server on loopback and a headless Debian chromium page that fails on
console errors, page errors, and any request that leaves loopback. Screenshots go to screenshots/."""
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server_log(tmp_path_factory):
    """The file the test server writes its stderr to (model loads are logged there)."""
    return tmp_path_factory.mktemp("server") / "streamlit.log"


@pytest.fixture(scope="session")
def server_url(server_log):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    port = _free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
           f"--server.port={port}", "--server.address=127.0.0.1", "--browser.gatherUsageStats=false",
           "--server.fileWatcherType=none"]
    log = open(server_log, "w")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                break
        except OSError:
            time.sleep(0.2)
    else:
        proc.terminate()
        pytest.fail("streamlit did not start: " + server_log.read_text()[-2000:])
    yield url
    proc.terminate()
    proc.wait(timeout=20)
    log.close()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


class PageProblems(list):
    """Console errors, page errors and off-loopback requests seen by one page."""


@pytest.fixture
def page(browser):
    """A fresh page (own context). After the test, asserts no console/page errors, no off-loopback request."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    problems = PageProblems()
    pg.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    pg.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)

    def guard(route):
        u = route.request.url
        if u.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")):
            return route.continue_()
        problems.append(f"request left loopback: {u}")
        return route.abort()

    pg.route("**/*", guard)
    pg.problems = problems
    yield pg
    ctx.close()
    assert not problems, "\n".join(problems)


def shot(page, name: str):
    """Save a full-page screenshot to screenshots/<name>.png and return its path."""
    SHOTS.mkdir(exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def wait_for_app(page, timeout: float = 60_000):
    """Wait until Streamlit finished running the script (no 'running' indicator)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout)


def open_app_page(page, server_url: str, file: str, timeout: float = 120_000):
    """Open the app at its root, then follow the sidebar link to app_pages/<file>, as a person would
    (a deep link makes Streamlit probe <path>/_stcore/health first, which logs a 404)."""
    from app_pages import _pages
    title = next(t for f, t, _, _ in _pages.PAGES if f == file)
    page.goto(server_url)
    wait_for_app(page, timeout=timeout)
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    page.wait_for_url(f"**/{file.removesuffix('.py')}", timeout=30_000)
    wait_for_app(page, timeout=timeout)
