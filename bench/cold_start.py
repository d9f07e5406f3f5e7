"""The first visitor of a server just started with the README's command, `streamlit run app_warmed.py`, against the
plain `streamlit run app.py`: a fresh headless Chromium context opens home (`cold_start_home_title_s`: its title
drawn) and then, in another fresh context, the explorer (`cold_start_explorer_s`: its first figure drawn), the
moment the server's health check says "ok" (app_warmed.py says so once its own session has opened both). The
`_unwarmed` figures are the same on app.py. Targets (issue 37): home's title within 3 s, the explorer's first
figure within 4 s. Loopback only; one server at a time."""
import tempfile
from pathlib import Path

from bench.classroom import first_view_s

SCRIPTS = {"": "app_warmed.py", "_unwarmed": "app.py"}


def run(quick: bool = False) -> dict:
    from playwright.sync_api import sync_playwright

    from harness.server import launch, streamlit_server
    tmp = Path(tempfile.mkdtemp(prefix="cold-start-"))
    out: dict = {}
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            for suffix, script in SCRIPTS.items():
                with streamlit_server(tmp / f"{script}.log", script=script) as url:
                    home = first_view_s(browser, url, path="/", figure=None)
                    explorer = first_view_s(browser, url)
                out[f"cold_start_home_title_s{suffix}"] = home["title_s"]
                out[f"cold_start_explorer_s{suffix}"] = explorer["s"]
                out[f"cold_start_explorer_run_received_s{suffix}"] = explorer["run_received_s"]
        finally:
            browser.close()
    return out
