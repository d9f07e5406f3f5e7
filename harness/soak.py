"""The memory soak: pages rerun many times in AppTest in this process with varied text, hostile inputs among it;
RSS growth once garbage is collected, and the reruns that raised. The benchmark runs 500 reruns
(bench/gates.py), the test suite a short form (tests/app/test_soak.py)."""
import gc
import os
import random
from pathlib import Path

from harness.app_test import open_page
from harness.hostile_inputs import TEXTS
from model.data import course_world as corpus

# (page, key of its free-text box): the soak rotates over these
BOXES = [("explorer.py", "explorer_text"), ("coreference.py", "coref_text"), ("generation.py", "gen_prompt"),
         ("step_by_step.py", "steps_text"), ("translation.py", "tr_text"), ("positional.py", "order_a")]


def rss_mb() -> float:
    """Resident set size of this process now (not the peak), in MB."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
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
    from runtime import memory
    gc.collect()
    memory.release_freed_heap()
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
