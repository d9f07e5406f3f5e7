"""Explorer figures: a rerun of the explorer page itself (AppTest, its run not cached) at 128 tokens,
capture overhead (capture ÷ fast forward, interleaved, CPU time on one thread), the grid's bytes against the
JSON of the same random 12 × 12 tensor (every weight as a number, what a page sending the raw weights sends), and
the grid's draw time in headless Chromium (navigation to the image decoded)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from bench._timing import cpu_ms as _cpu_ms
from model import checkpoints
from model.data import course_world as corpus
from model.data import text_input
from model.data.word_tokenizer import WordTokenizer
from model.engine.capture import capturing
from model.engine.config import preset
from model.engine.transformer import Transformer
from model.tasks.attention_run import capture_buffer, stack_intermediates
from viz import grid

DEFAULT, LONG = "coref_encoder", "sparse_encoder"     # LONG reads 512 positions
PRETRAINED = "minilm"                                  # 6 layers × 12 heads, d_model 384: the largest grid
PARAGRAPH = corpus.PARAGRAPH + " "
ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"


def _shipped_or_random(name: str, max_len: int, kind: str):
    """(model, tokenizer, label, text rule): the shipped model, or a random compact one of the same shape family."""
    if name in checkpoints.shipped():
        model, meta = checkpoints.load(name)
        return model, text_input.tokenizer_of(meta), name, text_input.rule_of(meta)
    tok = WordTokenizer.build([PARAGRAPH])
    torch.manual_seed(0)
    cfg = preset("compact-long" if max_len > 256 else "compact", len(tok), kind=kind, max_len=max_len)
    rule = "cls_sep" if kind == "encoder" else "bos"
    return Transformer(cfg).eval(), tok, f"random {cfg.n_layers}x{cfg.n_heads} (no {name} in assets/)", rule


def text_of(tok: WordTokenizer, n: int, rule: str) -> str:
    """A text of the paragraph repeated that encodes to exactly n tokens."""
    words = (PARAGRAPH * (n // 10 + 2)).split()
    lo, hi = 1, len(words)
    while lo < hi:                                   # the fewest words that reach n tokens
        mid = (lo + hi) // 2
        if len(text_input.encode(tok, " ".join(words[:mid]), rule).ids) >= n:
            hi = mid
        else:
            lo = mid + 1
    return " ".join(words[:lo])


def _explorer_script():
    from app_pages.views.explorer import render
    render()


def explorer_page(timeout: float = 300):
    """AppTest of the explorer page on its own: app_pages/views/explorer.py's render(), no app shell around it."""
    from streamlit.testing.v1 import AppTest
    return AppTest.from_function(_explorer_script, default_timeout=timeout)


def refresh(repeats: int, name: str = DEFAULT, suffix: str = "") -> dict:
    """CPU time of one rerun of the explorer page (app_pages/views/explorer.py, its first tab open) on a text of 128
    tokens, the model run included: the page's cached run is cleared before each rerun. Threads as app.py sets
    them: one for BLAS, one for torch. Keys end with `suffix` (another model than the default)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            return {f"{k}{suffix}": v for k, v in _refresh(repeats, name).items()}
    finally:
        torch.set_num_threads(before)


def _refresh(repeats: int, name: str) -> dict:
    if name not in checkpoints.shipped():
        return {"explorer_refresh_ms_n128": None, "explorer_refresh_model": f"no {name} in assets/"}
    from app_pages import _runs
    model, meta = checkpoints.load(name)
    n = min(128, model.config.max_len)
    at = explorer_page()
    at.session_state["text_model"] = name
    at.session_state["explorer_text"] = text_of(text_input.tokenizer_of(meta), n, text_input.rule_of(meta))

    def once():
        _runs.explorer_run.clear()
        _runs.explorer_word_weights.clear()
        at.run()
    once()
    if at.exception:
        return {"explorer_refresh_ms_n128": None, "explorer_refresh_error": at.exception[0].message[:200]}
    return {"explorer_refresh_ms_n128": _cpu_ms(once, repeats), "explorer_refresh_model": name,
            "explorer_refresh_tokens": n}


def capture_ratio(name: str, n: int, kind: str, repeats: int) -> dict:
    model, tok, label, _ = _shipped_or_random(name, n, kind)
    n = min(n, model.config.max_len)
    ids = torch.randint(len(tok) // 2, len(tok), (1, n))

    @torch.inference_mode()
    def fast():
        model.encode(ids)

    @torch.inference_mode()
    def captured():                                   # as run_text: one preallocated buffer, numpy view
        buf = capture_buffer(model, n)
        with capturing(weights_into=buf):
            out = model.encode(ids)
        buf[:, 0].numpy(), torch.cat(out.hidden).numpy()
    fast(), captured()
    t = {"fast": [], "capture": []}
    for _ in range(repeats):                          # interleaved: both see the same machine load
        t["fast"].append(_cpu_ms(fast, 1))
        t["capture"].append(_cpu_ms(captured, 1))
    ratio = statistics.median(t["capture"]) / statistics.median(t["fast"])
    return {f"capture_overhead_ratio_n{n}": ratio, f"capture_fast_ms_n{n}": statistics.median(t["fast"]),
            f"capture_model_n{n}": label}


def capture_memory(name: str, n: int, kind: str) -> dict:
    """Peak extra memory (MiB, RSS) of a forward with capture into one preallocated (L, H, N, N) buffer
    against per-layer weights concatenated afterwards (the plain way), same model, same ids."""
    from model.analysis import cost
    cost.release_freed_memory()                        # big blocks via mmap, returned on free: honest RSS
    model, tok, _, _ = _shipped_or_random(name, n, kind)
    n = min(n, model.config.max_len)
    ids = torch.randint(len(tok) // 2, len(tok), (1, n))

    def buffered():
        buf = capture_buffer(model, n)
        with capturing(weights_into=buf):
            model.encode(ids)
        return buf[:, 0].numpy()

    def concatenated():
        with capturing():
            return stack_intermediates(model.encode(ids).intermediates, "weights")
    out = {}
    with torch.inference_mode():
        for label, fn in (("buffer", buffered), ("concat", concatenated)):
            peaks = []
            for _ in range(3):
                with cost.PeakMemory("cpu") as peak:
                    fn()
                peaks.append(peak.extra_mib)
            out[f"capture_peak_mib_n{n}_{label}"] = min(peaks)
    out[f"capture_weights_mib_n{n}"] = len(model.encoder.layers) * model.encoder.layers[0].self_attn.n_heads \
        * n * n * 4 / 2**20
    return out


def capture_memory_in_child(name: str, n: int, kind: str) -> dict:
    """capture_memory in a fresh interpreter, so the RSS peaks see no memory freed by earlier benchmarks."""
    code = ("import json, torch; torch.set_num_threads(1); from bench.explorer import capture_memory; "
            f"print(json.dumps(capture_memory({name!r}, {n}, {kind!r})))")
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=600)
    if done.returncode:
        return {"capture_memory_error": done.stderr.strip().splitlines()[-1][:200]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def random_weights(layers=12, heads=12, n=128, seed=0) -> np.ndarray:
    """Softmaxed Gaussian scores: the worst case for image compression (no structure)."""
    x = np.random.default_rng(seed).standard_normal((layers, heads, n, n)).astype(np.float32)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def payload(weights: np.ndarray) -> dict:
    fig, _ = grid.plot_grid(weights)
    ours = len(fig.to_json().encode())
    raw = len(json.dumps(weights.tolist()).encode())
    return {"grid_payload_bytes_12x12_n128": ours, "weights_json_bytes_12x12_n128": raw,
            "grid_payload_ratio_12x12_n128": ours / raw}


DECODED = """async (replot) => { const gd = document.querySelector('.js-plotly-plot'); const t = performance.now();
    if (replot) await Plotly.react(gd, gd.data, gd.layout);
    const img = new Image(); img.src = document.querySelector('.imagelayer image').getAttribute('href');
    await img.decode(); return (performance.now() - t) / 1000; }"""


def draw_seconds(weights: np.ndarray, repeats: int) -> dict:
    """Static HTML of the grid figure (plotly.js inline, nothing fetched), loaded in headless Chromium.
    grid_draw_s: navigation start until the grid image is decoded (includes parsing plotly.js, 4.6 MB,
    which Streamlit does once per session); grid_replot_s: drawing the figure again in the loaded page."""
    if not Path(CHROMIUM).exists():
        return {"grid_draw_s_12x12_n128": None, "grid_draw_note": f"{CHROMIUM} missing"}
    from playwright.sync_api import sync_playwright
    fig, _ = grid.plot_grid(weights)
    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "grid.html"
        page_file.write_text(fig.to_html(include_plotlyjs=True, full_html=True, default_width=900, default_height=900))
        load, replot = [], []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            for _ in range(repeats):
                pg = browser.new_page(viewport={"width": 1000, "height": 1000})
                t0 = time.perf_counter()
                pg.goto(page_file.as_uri())
                pg.wait_for_selector(".imagelayer image", state="attached", timeout=120_000)
                pg.evaluate(DECODED, False)
                load.append(time.perf_counter() - t0)
                replot.append(pg.evaluate(DECODED, True))
                pg.close()
            browser.close()
    return {"grid_draw_s_12x12_n128": statistics.median(load), "grid_replot_s_12x12_n128": statistics.median(replot),
            "bench_load_average_1min": os.getloadavg()[0]}


def run(quick: bool = False) -> dict:
    from threadpoolctl import threadpool_limits
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(1):                   # numpy's BLAS too: one thread, like torch
            reps = 5 if quick else 20
            out = refresh(reps)
            out.update(refresh(reps, PRETRAINED, f"_{PRETRAINED}"))
            out.update(capture_ratio(DEFAULT, 128, "encoder", reps * 2))
            out.update(capture_ratio(LONG, 512, "encoder", reps * 2))
            out.update(capture_memory_in_child(LONG, 512, "encoder"))
            w = random_weights()
            out.update(payload(w))
            out.update(draw_seconds(w, 1 if quick else 3))
        return out
    finally:
        torch.set_num_threads(threads)
