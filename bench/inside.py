"""Inside-a-head figures: one rerun of the explorer page (AppTest, the real page code) with each of its
inside-a-head tabs open (Ablation, Why this weight, Value norms, Queries & keys) on a text of 128 tokens, the
coref_encoder shown as whole words, every cached run cleared first (the model runs included), CPU time on one
BLAS and one torch thread as app.py runs every session: the median, and the least (on a shared machine other
processes only ever add to a sample)."""
import statistics

import torch
from threadpoolctl import threadpool_limits

from bench import _timing
from bench.explorer import DEFAULT, explorer_page, text_of
from model import checkpoints
from model.data import text_input

TABS = {"ablation_rerun_ms_n128": "Ablation", "why_cell_ms_n128": "Why this weight",
        "value_norm_ms_n128": "Value norms", "qk_scatter_ms_n128": "Queries & keys"}


def _clear():
    from app_pages import _head_runs, _runs
    for fn in (_runs.explorer_run, _runs.explorer_word_weights, _head_runs.qkv_run, _head_runs.ablation,
               _head_runs.masked_word, _head_runs.value_norms, _head_runs.sentences_qk):
        fn.clear()


def reruns(repeats: int) -> dict:
    if DEFAULT not in checkpoints.shipped():
        return {"inside_model": f"no {DEFAULT} in assets/"}
    model, meta = checkpoints.load(DEFAULT)
    n = min(128, model.config.max_len)
    out = {"inside_model": DEFAULT, "inside_tokens": n}
    for key, tab in TABS.items():
        at = explorer_page()
        at.session_state["text_model"] = DEFAULT
        at.session_state["explorer_text"] = text_of(text_input.tokenizer_of(meta), n, text_input.rule_of(meta))
        at.session_state["explorer_tab"] = tab

        def once():
            _clear()
            at.run()
        once()
        if at.exception:
            out[key] = None
            out[f"{key}_error"] = at.exception[0].message[:200]
            continue
        samples = _timing.samples(once, repeats)
        out[key] = statistics.median(samples) * 1e3
        out[key.replace("_n128", "_min_n128")] = min(samples) * 1e3       # the machine's load adds, never removes
    return out


def run(quick: bool = False) -> dict:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            return reruns(3 if quick else 10)
    finally:
        torch.set_num_threads(threads)
