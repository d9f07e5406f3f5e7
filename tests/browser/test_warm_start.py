"""The README's start command, `streamlit run app_warmed.py`, warms the app before anyone waits: its health check
answers 503 "warming up" until the server's own session has opened home and the explorer (the models loaded, the
first runs cached), then "ok"; and the pages it serves are app.py's. The seconds a first visitor waits are in the
benchmark (`python -m bench --json --only cold_start`), never in a test."""
import subprocess
import sys
import time
import urllib.error
import urllib.request

from harness.server import ROOT, free_port
from tests.browser.conftest import wait_for_app

LOADED = "[attention-lab] loading model"        # what the server logs as it loads a model (app_pages/_resources.py)


def _health(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except OSError:
        return 0, b""


def test_the_health_check_waits_for_the_warm_up_then_the_app_is_served(tmp_path, browser):
    port, log = free_port(), tmp_path / "warmed.log"
    cmd = [sys.executable, "-m", "streamlit", "run", "app_warmed.py", "--server.headless=true", f"--server.port={port}",
           "--server.address=127.0.0.1", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"]
    url = f"http://127.0.0.1:{port}"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            answers, loaded_before_ok = [], None
            for _ in range(900):
                status, body = _health(url)
                if status:
                    answers.append((status, body))
                if status == 200:
                    loaded_before_ok = LOADED in log.read_text()
                    break
                time.sleep(0.2)
            assert answers and answers[-1] == (200, b"ok"), answers[-3:]
            assert (503, b"warming up") in answers                   # the server listened before it was warm
            assert loaded_before_ok, log.read_text()[-2000:]          # the models were loaded before "ok"
            page = browser.new_page()
            page.goto(f"{url}/explorer")
            wait_for_app(page, timeout=120_000)
            assert page.locator("h1").first.inner_text() == "Attention explorer"
            page.close()
        finally:
            proc.terminate()
            proc.wait(timeout=60)
