"""Quality gates as figures: RSS growth over many reruns with varied inputs (the soak, AppTest in this
process: harness/soak.py) and many browser sessions at once against one real server: problems and model loads
counted."""
from pathlib import Path

from harness.soak import soak


def sessions_at_once(n: int = 20) -> dict:
    """n browser sessions at once against one real server (harness/sessions.py)."""
    import tempfile

    from playwright.sync_api import sync_playwright

    from harness.server import launch, streamlit_server
    from harness.sessions import drive_sessions, model_loads
    log = Path(tempfile.mkdtemp()) / "streamlit.log"
    with streamlit_server(log) as url, sync_playwright() as pw:
        browser = launch(pw)
        r = drive_sessions(browser, url, n)
        r["first_ctx"].close()
        browser.close()
    loads = model_loads(log)
    return {"sessions": n, "problems": len(r["problems"]), "max_loads_per_model": max(loads.values(), default=0)}


def run(quick: bool = False) -> dict:
    s = soak(reruns=60 if quick else 500)
    c = sessions_at_once(10 if quick else 20)
    key = "rss_growth_mb_60_reruns" if quick else "rss_growth_mb_500_reruns"
    return {key: s["rss_growth_mb"], "soak_rerun_exceptions": s["rerun_exceptions"],
            "concurrent_sessions": c["sessions"], "concurrent_session_problems": c["problems"],
            "concurrent_max_loads_per_model": c["max_loads_per_model"]}
