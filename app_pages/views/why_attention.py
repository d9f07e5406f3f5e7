"""Why attention. Teaches the textbook's opening argument (12.1) and the tutorial's and lecture's case against the
RNN: a text of N words × D dimensions is N·D inputs, far too many for one dense layer, whose parameters also
depend on N; self-attention's parameters do not (12.2.3), so one shipped model reads texts of any length; and an
RNN must compute its N positions one after another where attention computes them at once, measured here."""
import html

import pandas as pd
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _url
from app_pages._markup import md
from app_pages._numbers import spoken
from i18n import N_, _
from model.analysis import recurrence, sizes
from model.data.course_world import PARAGRAPH
from runtime import heavy_jobs
from viz.slide import caption_line
from viz.why_attention import plot_param_growth, plot_rnn_timing

TABS = [N_("Input size"), N_("Parameters vs N"), N_("RNN vs attention")]
BIND, KEEP = _url.BIND, _url.KEEP          # every input is in the URL and survives a visit to another page
PREFIXES = (5, 10, 20, 37)                 # words of the course paragraph the shipped model reads
DEFAULT_MODEL = _resources.FILL_MODEL      # byte-level BPE: reads any text
RESULTS = "_why_rnn_rows"                  # session state: the last measurement, with what it measured


def _words(n: int) -> str:
    """A parameter count as a person says it, in the reader's language: 1,435,538,432 -> "1.4 billion" ("14.4亿");
    under a thousand, the number itself."""
    return spoken(n)


def _tex(n: int) -> str:
    """A count for LaTeX: thousands separated by commas that take no extra space."""
    return f"{n:,}".replace(",", "{,}")


def _bytes(n: int) -> str:
    b = n * sizes.BYTES_FLOAT32
    for size, unit in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if b >= size:
            return f"{b / size:,.1f} {unit}"
    return _("{n:,} bytes").format(n=b)


def input_size_section():
    words = sizes.count_words(PARAGRAPH)
    st.markdown(_("The textbook opens (12.1) with this text of **{n} words**:").format(n=words))
    st.markdown(_("> {paragraph}").format(paragraph=md(PARAGRAPH)))
    st.markdown(_("Give each word a vector of D numbers and the text becomes N·D numbers. A fully connected layer "
                  "that reads all of them and writes as many needs a weight for every input–output pair."))
    _url.stale_number("why_words", 1, sizes.MAX_WORDS, _("the number of words"), sizes.COURSE_WORDS)
    _url.stale_number("why_dims", 1, sizes.MAX_DIMS, _("the dimensions per word"), sizes.COURSE_DIMS)
    c1, c2 = st.columns(2)
    n = int(c1.number_input(_("Words N (1–{most:,})").format(most=sizes.MAX_WORDS), 1, sizes.MAX_WORDS,
                            sizes.COURSE_WORDS, key="why_words", bind=BIND, persist_state=KEEP))
    d = int(c2.number_input(_("Dimensions per word D (1–{most:,})").format(most=sizes.MAX_DIMS), 1, sizes.MAX_DIMS,
                            sizes.COURSE_DIMS, key="why_dims", bind=BIND, persist_state=KEEP))
    dense, phi, attn = sizes.dense_params(n, d), sizes.attention_params(d, output=False), sizes.attention_params(d)
    a, b, c = st.columns(3)
    a.metric(_("Inputs N·D"), f"{n * d:,}")
    b.metric(_("One dense layer"), f"{dense:,}", help=_("{words} parameters, {size} in float32").format(
        words=_words(dense), size=_bytes(dense)))
    c.metric(_("Self-attention (W_Q, W_K, W_V, W_O)"), f"{attn:,}", help=_("the same count for any N"))
    st.latex(r"\text{" + _("one dense layer:") + rf" }}(N D)^2 + N D = ({_tex(n * d)})^2 + {_tex(n * d)} = "
             rf"{_tex(dense)}")
    st.latex(r"\text{" + _("self-attention:") + r" }\underbrace{3(D^2 + D)}_{\Omega_v,\,\Omega_q,\,\Omega_k\text{"
             + _(" + biases") + r"}} + \underbrace{(D^2 + D)}_{W_O\text{" + _(" + bias") + r"}}"
             + f" = {_tex(phi)} + {_tex(attn - phi)} = {_tex(attn)}")
    st.markdown(_("One dense layer over this text holds **{words}** parameters ({size} as float32), **{ratio}×** a "
                  "self-attention layer of the same width. And it fits only texts of exactly {n:,} words: {more:,} "
                  "words are {inputs:,} inputs, which it cannot even read. Self-attention applies the same W_Q, W_K, "
                  "W_V to every word, so its count has no N in it.").format(
        words=_words(dense), size=_bytes(dense), ratio=f"{dense / attn:,.0f}", n=n, more=n + 1, inputs=(n + 1) * d))
    grid = sizes.growth(d, max(10 * n, 1000))
    _export.chart(plot_param_growth(grid["N"], grid["dense"], grid["attention"], d=d, marked_n=n,
                                    title=_("Parameters against N at D = {d:,}").format(d=d)),
                  key="why_growth", main=True,
                  name=("dense_vs_attention_parameters", f"N{n}", f"D{d}"),
                  caption=caption_line(f"N = {n:,}", f"D = {d:,}"))


def parameters_section():
    st.markdown(_("The textbook (12.2.3): self-attention has one set of parameters φ = {phi}, the same for every "
                  "input, so their number does not depend on N and one model reads texts of any length. Here a "
                  "shipped model reads the first 5, 10, 20 and 37 words of the paragraph with the same weights; "
                  "beside each run, the dense layer the same N tokens would need.").format(
        phi="{β_v, Ω_v, β_q, Ω_q, β_k, Ω_k}"))
    models = _resources.text_models()
    if not models:
        st.info(_("No shipped text model was found in assets/."))
        return
    default = DEFAULT_MODEL if DEFAULT_MODEL in models else models[0]
    _url.stale_link("why_model", models, _("the model"), default)
    name = st.selectbox(_("Model"), models, index=models.index(default), key="why_model", bind=BIND,
                        persist_state=KEEP)
    _model, meta = _resources.model_or_stop(name)
    c = meta["config"]
    runs = _runs.length_runs(name, _resources.device(), PARAGRAPH, PREFIXES)
    total = runs[0].n_params
    st.metric(_("Parameters of {name} in every run").format(name=html.escape(name)), f"{total:,}",
              help=_("counted from the loaded weights after each run"))
    st.dataframe(pd.DataFrame({_("words read"): [r.words for r in runs], _("tokens N"): [r.n_tokens for r in runs],
                               _("output (N, d_model)"): [f"({r.out_shape[0]}, {r.out_shape[1]})" for r in runs],
                               _("model parameters"): [f"{r.n_params:,}" for r in runs],
                               _("one dense layer over N·d_model"): [f"{r.dense_params:,}" for r in runs]}),
                 hide_index=True)
    same = len({r.n_params for r in runs}) == 1
    (st.success if same else st.error)(
        (_("{n} lengths, one parameter count.") if same else _("{n} lengths, different parameter counts.")).format(
            n=len(runs)))
    left, right = st.columns([2, 3])
    parts = _runs.model_parts(name)
    left.dataframe(pd.DataFrame({_("part"): [_(p) for p in parts],
                                 _("parameters"): [f"{v:,}" for v in parts.values()],
                                 _("depends on N"): [_("up to max_len") if p == "position table" else _("no")
                                                     for p in parts]}),
                   hide_index=True)
    if c.get("pos_encoding") == "learned":
        left.caption(_("The one part tied to length is the learned position table: {rows} rows, so this model reads "
                       "at most {rows} tokens. Sine/cosine or relative positions have no such table.").format(
            rows=c["max_len"]))
    grid = sizes.growth(c["d_model"], 1000)
    title = _("d_model = {d}: a dense layer grows with N, the model does not").format(d=c["d_model"])
    _export.chart(plot_param_growth(grid["N"], grid["dense"], grid["attention"], d=c["d_model"],
                                    model=(name, total), title=title), key="why_model_growth", main=True, where=right,
                  name=(name, "parameters_vs_N"), caption=caption_line(name, f"d_model {c['d_model']}"))


def rnn_section():
    st.markdown(_("An RNN reads a sequence one position at a time: h_t = tanh(x_t W_ih + b_ih + h_(t−1) W_hh + "
                  "b_hh). Step t needs h_(t−1), so N positions are **N steps one after another**, and the first word "
                  "reaches the last only through N − 1 of them. Self-attention computes every output from X with the "
                  "same few matrix products, Z = softmax(QKᵀ/√d_k)V: **one step**, whose work spreads over every "
                  "core (or a GPU's thousands of lanes), and any word reaches any other directly."))
    rows = [(n, *steps.values()) for n in recurrence.SIZES for steps in [recurrence.steps_between(n)]]
    st.dataframe(pd.DataFrame(rows, columns=["N", _("RNN: sequential steps"), _("attention: sequential steps"),
                                             _("RNN: steps from the first word to the last"),
                                             _("attention: steps from the first word to the last")]), hide_index=True)
    st.markdown(_("Measure both on the same random sequence of N vectors, at the same width (random weights: the "
                  "time does not depend on training)."))
    labels = [str(n) for n in recurrence.SIZES]
    _url.stale_picks("why_rnn_n", labels, _("the lengths"))
    _url.stale_link("why_rnn_d", [str(w) for w in recurrence.WIDTHS], _("the width"), 128)
    c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    chosen = c1.multiselect(_("Sequence lengths N"), list(recurrence.SIZES), default=[16, 64, 256, 1024],
                            key="why_rnn_n", bind=BIND, persist_state=KEEP,
                            help=_("Up to N = {most:,}; the longest take a few seconds.").format(most=recurrence.MAX_N))
    d = c2.selectbox("d_model", recurrence.WIDTHS, index=1, key="why_rnn_d", bind=BIND, persist_state=KEEP)
    go = c3.button(_("Measure"), type="primary", key="why_rnn_go", disabled=not chosen, width="stretch")
    if not chosen:
        st.info(_("Pick at least one sequence length."))
    device = _resources.device()
    if go and chosen:
        with heavy_jobs.slot(_("The measurement")) as job:      # one of the server's heavy-job slots
            if job is not None:
                bar, done = st.progress(0.0, text=_("Starting…")), []
                for i, n in enumerate(sorted(chosen)):
                    bar.progress(i / len(chosen), text=_("N = {n:,}: the RNN's {n:,} steps, then one attention "
                                                         "layer").format(n=n))
                    done.append(recurrence.measure(n, d, device=device))
                bar.empty()
                st.session_state[RESULTS] = (tuple(sorted(chosen)), d, device, done)
    result = st.session_state.get(RESULTS)
    if result:
        rnn_results(*result)


def rnn_results(ns: tuple[int, ...], width: int, dev: str, timings: list):
    """The last measurement: time against N for the RNN (a Python loop and torch.nn.RNN) and one attention layer,
    its table, and what it shows at the longest N."""
    where = _("the CPU") if dev == "cpu" else html.escape(dev)
    st.caption(_("Measured on {where} at d_model = {width}, N = {lengths}: the fastest of up to {repeats} runs after "
                 "a warm-up (other programs on the machine only ever add time). Press Measure again after changing "
                 "the lengths or the width.").format(where=where, width=width,
                                                      lengths=_(", ").join(f"{n:,}" for n in ns),
                                                      repeats=recurrence.REPEATS))
    _export.chart(plot_rnn_timing([t.n for t in timings], [t.rnn_ms for t in timings],
                                  [t.rnn_library_ms for t in timings], [t.attention_ms for t in timings]),
                  key="why_rnn_timing", main=True, name=("rnn_vs_attention_time", f"d{width}"),
                  caption=caption_line(f"d_model {width}", _("measured on {device}").format(device=dev)))
    st.dataframe(pd.DataFrame({"N": [t.n for t in timings], _("RNN steps run"): [t.rnn_steps for t in timings],
                               _("RNN, Python loop (ms)"): [round(t.rnn_ms, 2) for t in timings],
                               "torch.nn.RNN (ms)": [round(t.rnn_library_ms, 2) for t in timings],
                               _("attention steps run"): [t.attention_steps for t in timings],
                               _("self-attention (ms)"): [round(t.attention_ms, 2) for t in timings]}),
                 hide_index=True)
    last = timings[-1]
    rnn_best = min(last.rnn_ms, last.rnn_library_ms)
    said = _("At N = {n:,} the RNN ran {steps:,} steps in a row ({rnn} ms at best), attention one pass ({attention} "
             "ms)").format(n=last.n, steps=last.rnn_steps, rnn=f"{rnn_best:,.1f}",
                           attention=f"{last.attention_ms:,.1f}")
    if last.attention_ms < rnn_best:
        said += _(": {ratio}× faster.").format(ratio=f"{rnn_best / last.attention_ms:,.1f}")
    else:
        said += _(": here the RNN's C++ loop was faster. Attention does more arithmetic in all (N² scores), and this "
                  "{device} has few lanes to spread it over.").format(
            device="CPU" if dev == "cpu" else html.escape(dev))
    st.markdown(said + _(" None of attention's work waits for anything else, so more cores or a GPU shorten it; the "
                         "RNN's steps cannot start early whatever the hardware, which is why a Transformer trains in "
                         "parallel and an RNN does not."))


def render():
    st.title(_("Why attention"))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    st.caption(_("What the course texts argue before self-attention: a text is too large and too variable for a "
                 "dense layer, self-attention's parameters do not depend on its length, and an RNN must walk it step "
                 "by step."))
    sections = dict(zip(TABS, (input_size_section, parameters_section, rnn_section)))
    # only the open tab runs; the open tab is in the URL
    shown = [_(t) for t in TABS]
    _url.stale_link("why_tab", shown, _("the tab"), shown[0])
    for label, tab in zip(TABS, st.tabs(shown, key="why_tab", on_change="rerun", bind=BIND)):

        if tab.open:
            with tab:
                sections[label]()
