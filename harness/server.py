"""A real `streamlit run app.py` on loopback and Debian's headless chromium, for browser tests and the
benchmark. Plain functions; tests/browser/conftest.py wraps them in fixtures."""
import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


def free_port() -> int:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(log_path: Path, script: str | Path = "app.py", env: dict | None = None,
                     python: str | Path = sys.executable):
    """Start the app (or another script, run from the repository root so .streamlit/config.toml applies) bound
    to 127.0.0.1, wait for /_stcore/health, yield its URL, stop it after. Its stdout and stderr go to
    log_path (model loads are logged there); `env`: variables set for the server on top of this process's;
    `python`: the interpreter that runs it (another virtualenv's, say)."""
    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: apt-get install -y chromium")
    port = free_port()
    cmd = [str(python), "-m", "streamlit", "run", str(script), "--server.headless=true",
           f"--server.port={port}", "--server.address=127.0.0.1", "--browser.gatherUsageStats=false",
           "--server.fileWatcherType=none"]
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                env={**os.environ, **(env or {})})
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                        break
                except OSError:
                    time.sleep(0.2)
            else:
                raise RuntimeError("streamlit did not start: " + Path(log_path).read_text()[-2000:])
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:      # a loaded machine: stop it for sure
                proc.kill()
                proc.wait(timeout=30)


def launch(pw):
    """Headless Debian chromium with the flags this closed network needs."""
    return pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)


def wait_for_app(page, timeout: float = 60_000):
    """Wait until Streamlit finished running the script (no 'running' indicator)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout)
