"""The masks page's cost: allowed (query, key) pairs of each pattern as N grows to 16k, and time and memory of
dense and sparse attention measured on this machine through the server's heavy-job queue."""
import pandas as pd
import streamlit as st

from app_pages import _export, _resources, _url
from app_pages._cache_sizes import CURVES_KEPT
from app_pages.views.masks_patterns import pattern_name
from i18n import N_, _
from model.analysis import cost
from model.engine import masks
from runtime import heavy_jobs, job_queue
from viz import masks as viz
from viz.slide import caption_line

SIZES = [256, 512, 1024, 2048, 4096, 8192, 16384]
TABLE_N = 4096                           # the cost table's length
BIND, KEEP = _url.BIND, _url.KEEP


def cost_section():
    st.subheader(_("Cost as N grows"))
    for key, lo, hi, what, start in (("masks_cost_w", 1, 1024, N_("window w"), 128), ("masks_cost_g", 0, 64,
                                     N_("global tokens g"), 16), ("masks_cost_s", 2, 4096, N_("stride / block"), 128),
                                     ("masks_cost_r", 0, 64, N_("random keys r"), 3)):
        _url.stale_number(key, lo, hi, _(what), start)
    c = st.columns(4)
    w = int(c[0].number_input(_("window w (each side)"), 1, 1024, 128, key="masks_cost_w", bind=BIND,
                              persist_state=KEEP))
    g = int(c[1].number_input(_("global tokens g"), 0, 64, 16, key="masks_cost_g", bind=BIND, persist_state=KEEP))
    stride = int(c[2].number_input(_("stride / block"), 2, 4096, 128, key="masks_cost_s", bind=BIND,
                                   persist_state=KEEP))
    r = int(c[3].number_input(_("random keys r"), 0, 64, 3, key="masks_cost_r", bind=BIND, persist_state=KEEP))
    names = {k: pattern_name(k) for k in masks.PATTERNS if k != "swin"}
    chosen = st.multiselect(_("Patterns"), list(names), key="masks_cost_patterns",
                            default=["full", "causal", "window", "dilated", "global", "extra_global", "strided",
                                     "block_local"],
                            format_func=names.get, bind=BIND, persist_state=KEEP)
    # the chosen global tokens are the first g of the N: the same g as the extra ones, which are added to the N
    params = dict(width=w, n_global=g, stride=stride, block=stride, per_row=r, dilation=2, positions=tuple(range(g)))
    own = {k: tuple(sorted((p, v) for p, v in params.items() if p in masks.PATTERNS[k].defaults())) for k in chosen}
    counts = {f"{pattern_name(k)} ~ {_(masks.PATTERNS[k].growth)}": pairs_curve(k, own[k]) for k in chosen}
    _export.chart(viz.plot_pairs_growth(SIZES, counts, title=_("Allowed (query, key) pairs against N")),
                  key="masks_pairs", name="mask_pairs_against_N", main=True,
                  caption=caption_line(_("window {w}").format(w=w), _("{g} global").format(g=g)))
    st.dataframe(cost_table(chosen, own, TABLE_N), hide_index=True)
    st.caption(_("At N = {n:,} text tokens. Chosen global tokens are g of the N tokens (here the first {g}), so the "
                 "matrix stays N × N; extra global tokens are g more tokens, so it is (N + g) × (N + g).").format(
        n=TABLE_N, g=g))
    measure_section(w, g)


def cost_table(keys, params: dict, n: int) -> pd.DataFrame:
    """One row per pattern at n text tokens: the matrix it makes, its allowed pairs and their share."""
    rows = []
    for k in keys:
        p = dict(params[k])
        side, pairs = masks.PATTERNS[k].side(n, **p), masks.allowed_pairs(k, n, **p)
        rows.append({_("pattern"): pattern_name(k), _("tokens in the matrix"): f"{side:,} × {side:,}",
                     _("allowed pairs"): f"{pairs:,}", _("share of the matrix"): f"{pairs / side**2:.2%}"})
    return pd.DataFrame(rows)


@st.cache_data(max_entries=CURVES_KEPT, show_spinner=False)
def pairs_curve(key: str, params: tuple) -> list[int]:
    return [masks.allowed_pairs(key, n, **dict(params)) for n in SIZES]


def measure(sizes: list[int], methods: list[str], w: int, g: int, names: dict):
    """Run the sweep as a child process through the server's heavy-job queue (waiting in line with its position
    shown), its progress bar fed by the rows as they come; the rows go to the session."""
    device, total = _resources.device(), len(sizes) * len(methods)
    job = heavy_jobs.submit(cost.sweep_command(methods, sizes, w, g, device), what=_("The measurement"),
                            memory_mb=cost.memory_bound(device))
    if job is None:
        return

    def progress(j):
        if not j.rows:
            return 0.0, _("Starting the measurement…")
        last = j.rows[-1]
        return len(j.rows) / total, _("{method} at N = {n:,}").format(method=names[last["method"]], n=last["n"])

    heavy_jobs.follow(job, progress)
    if job.state != job_queue.DONE:
        st.error(heavy_jobs.failure(job))
    st.session_state["masks_cost_rows"] = list(job.rows)


def measure_section(w: int, g: int):
    st.markdown(_("**Measured** on this machine (one head of dimension 64, one thread, device `{device}`): time of "
                  "one call and peak extra memory above the inputs.").format(device=_resources.device()))
    c = st.columns([2, 2, 1])
    names = {m: _(shown) for m, shown in cost.METHODS.items()}
    sizes = c[0].multiselect("N", SIZES, default=[1024, 4096], key="masks_cost_n", bind=BIND, persist_state=KEEP,
                             help=_("Dense attention at 16k needs about 2.3 GB and tens of seconds."))
    methods = c[1].multiselect(_("Methods"), list(cost.METHODS), default=["dense", "dense_masked", "sparse"],
                               format_func=names.get, key="masks_cost_methods", bind=BIND, persist_state=KEEP,
                               help=_("FlexAttention compiles first: minutes on a busy CPU."))
    go = c[2].button(_("Measure"), type="primary", key="masks_cost_go")
    if go and sizes and methods:
        measure(sorted(sizes), methods, w, g, names)
    st.caption(heavy_jobs.limits())
    rows = st.session_state.get("masks_cost_rows")
    if not rows:
        st.caption(_("Press **Measure** to time the chosen methods."))
        return
    for row in rows:
        if row.get("out_of_memory"):
            st.warning(_("{method} at N = {n:,} needs more than the {mb:,} MiB of memory one measurement may use on "
                         "this server.").format(method=names[row["method"]], n=row["n"],
                                                  mb=job_queue.QUEUE.memory_mb))
        elif "error" in row:
            st.warning(_("{method} at N = {n:,} did not run here: {error}").format(
                method=names[row["method"]], n=row["n"], error=row["error"]))
    ok = [r for r in rows if "error" not in r]
    a, b = st.columns(2)
    measured = caption_line(_("window {w}").format(w=w), _("{g} global").format(g=g),
                            _("one head of dimension 64, device {device}").format(device=_resources.device()))
    _export.chart(viz.plot_cost(ok, "time_ms", title=_("Time per call"), names=names), key="masks_time",
                  where=a, name="attention_time_against_N", caption=measured)
    _export.chart(viz.plot_cost(ok, "peak_mib", title=_("Peak extra memory"), names=names), key="masks_mem",
                  where=b, name="attention_memory_against_N", caption=measured)
    st.caption(_("Time: median of 3 calls, CPU time of the computing thread (wall time on a GPU), so a busy machine "
                 "does not inflate it. Memory: the process's peak resident memory above its level before the call "
                 "(GPU: the allocator's peak); below ~5 MiB it is within the allocator's noise."))
    table = pd.DataFrame(ok).rename(columns={"method": _("method"), "time_ms": _("time (ms)"),
                                             "peak_mib": _("peak memory (MiB)")})
    st.dataframe(table, hide_index=True)
