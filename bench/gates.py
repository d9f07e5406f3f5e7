"""Quality gates as figures: RSS growth over many reruns with varied inputs (the soak, AppTest in this
process) and many browser sessions at once against one real server: problems and model loads counted."""
import gc
import random
from pathlib import Path

from model.data import course_world as corpus
from tests.app.conftest import open_page
from tests.hostile_inputs import TEXTS

ROOT = Path(__file__).resolve().parent.parent
# (page, key of its free-text box): the soak and the sessions rotate over these
BOXES = [("explorer.py", "explorer_text"), ("coreference.py", "coref_text"), ("generation.py", "gen_prompt"),
         ("step_by_step.py", "steps_text"), ("translation.py", "tr_text"), ("positional.py", "order_a")]


def rss_mb() -> float:
    """Resident set size of this process now (not the peak), in MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    import os
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def varied_texts(n: int, seed: int = 0) -> list[str]:
    """Course-world passages of varied length, with a hostile input every seventh."""
    rng = random.Random(seed)
    base = corpus.lm_texts(n, seed=seed)
    hostile = list(TEXTS.values())
    return [hostile[i % len(hostile)] if i % 7 == 6 else " ".join(rng.sample(base, k=rng.randint(1, 4)))
            for i in range(n)]


def _box(at, key):
    return next(w for w in list(at.text_area) + list(at.text_input) if w.key == key)


def _settled_rss_mb() -> float:
    """RSS once garbage is collected and freed heap handed back (what the app does at the start of every run):
    memory kept, not garbage of the last run."""
    from app_pages import _memory
    gc.collect()
    _memory.release_freed_heap()
    return rss_mb()


def soak(reruns: int = 500, warmup: int = 12, seed: int = 0) -> dict:
    """Rerun pages `reruns` times with varied text (after `warmup` reruns that load every model) and
    return the RSS growth in MB and the number of reruns that raised. The cache budget of
    .streamlit/config.toml applies, as in the server (which sets it at start-up)."""
    from streamlit.runtime.caching.global_cache_budget import reconfigure_global_cache_budget_from_config
    reconfigure_global_cache_budget_from_config()
    sessions = {page: open_page(page, timeout=180) for page, _ in BOXES}
    texts = varied_texts(reruns + warmup, seed)
    exceptions = 0
    start = None
    for i, text in enumerate(texts):
        if i == warmup:
            start = _settled_rss_mb()
        page, key = BOXES[i % len(BOXES)]
        at = sessions[page]
        _box(at, key).set_value(text).run()
        exceptions += bool(at.exception)
    return {"rss_growth_mb": _settled_rss_mb() - start, "reruns": reruns, "rerun_exceptions": exceptions}


def sessions_at_once(n: int = 20) -> dict:
    """n browser sessions at once against one real server (see tests/browser/sessions.py)."""
    import tempfile

    from playwright.sync_api import sync_playwright

    from tests.browser.server import launch, streamlit_server
    from tests.browser.sessions import drive_sessions, model_loads
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
