"""Step by step: one self-attention step on real numbers. X, the head's W_Q, W_K, W_V, Q, K, V, QKᵀ,
the √d_k scaling, softmax, Z, in row form and in the textbook's column form; the lecture's worked
example and exercise; why √d_k; multi-head + W_O; a token through Add & Norm and the FFN; the causal mask."""
import json
from functools import partial
from typing import NamedTuple

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _predict, _present, _resources, _runs, _state, _url
from app_pages._markup import esc, md
from app_pages._numbers import plain
from i18n import N_, _
from labels import file_label, head_label, head_only, layer_label
from model import reference
from model.analysis import norms, published, steps
from viz.norms import plot_norm_heatmaps, plot_norm_stats
from viz.slide import caption_line
from viz.steps import plot_matrix, plot_saturation, plot_softmax_bars, plot_trace

DEFAULT_TEXT = "The restaurant refused to serve me a ham sandwich because it was too salty."
D_KS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
N_KEYS = 8
MAX_CHARS = 2000                      # the text box's limit, no more than a link carries (_url.URL_TEXT_MAX)
BIND, KEEP = _url.BIND, _url.KEEP     # every input is in the URL and survives a visit to another page
TABS = [N_("One head"), N_("The lecture's example"), N_("Why √d_k"), N_("Multi-head"), N_("The layer"),
        N_("Causal mask")]
CHANGE_LABELS = {"flatter": N_("Flatter (closer to uniform)"), "about the same": N_("About the same"),
                 "more peaked": N_("More peaked (closer to one-hot)")}
ARRAY_WORDS = {N_("scores"), N_("scaled"), N_("weights"), N_("mask"), N_("heads"), N_("concat"), N_("out"),
               N_("exp")}                # the arrays named by a word, not a symbol (translated where shown)



def to_json(arrays: dict) -> str:
    """Exact float64 values as JSON (repr round-trips); -inf, which JSON lacks, as the string "-inf"."""
    def clean(v):
        if isinstance(v, np.ndarray):
            return clean(v.tolist())
        if isinstance(v, list):
            return [clean(x) for x in v]
        if isinstance(v, float) and not np.isfinite(v):
            return "-inf" if v < 0 else "inf"
        return v.item() if isinstance(v, np.generic) else v
    return json.dumps({k: clean(v) for k, v in arrays.items()}, ensure_ascii=False)


def to_csv(matrix: np.ndarray, rows=None) -> str:
    """(n,), (rows, cols) or (H, rows, cols) as CSV with every digit (pandas writes float repr)."""
    def frame(m):
        return pd.DataFrame(m, index=rows if rows is not None and len(rows) == m.shape[0] else None)
    m = np.asarray(matrix)
    if m.ndim == 3:
        return pd.concat({head_only(h): frame(m[h]) for h in range(m.shape[0])}).to_csv()
    return frame(np.atleast_2d(m)).to_csv()


def array_name(name: str) -> str:
    """An array's name as shown: symbols (X, W_Q, Z) as they are, words translated. The file keeps the key."""
    return _(name) if name in ARRAY_WORDS else name


def downloads(arrays: dict, prefix: str, tokens=None, key: str = ""):
    """A JSON of every array and a CSV of one picked array, all exact."""
    left, mid, right = st.columns([1, 1, 1])
    text = " ".join(map(str, tokens)) if tokens is not None else None        # the file names end in its hash
    _export.download(_("All steps (JSON)"), lambda: to_json(arrays), prefix, "json", "application/json",
                     key=f"{key}_json", where=left, text=text)                 # files are made on click
    pick = mid.selectbox(_("Matrix as CSV"), list(arrays), key=f"{key}_csv_pick", label_visibility="collapsed",
                         format_func=array_name, bind=BIND, persist_state=KEEP)
    _export.download(_("{matrix} (CSV)").format(matrix=array_name(pick)),
                     lambda: to_csv(np.asarray(arrays[pick]), tokens), (prefix, pick), "csv", "text/csv",
                     key=f"{key}_csv", where=right, text=text)


class About(NamedTuple):
    """What a section's figures show, for their slide exports: the file name's first parts and the caption."""
    stem: tuple
    caption: str


def lecture_about() -> About:
    return About(("worked_example",), caption_line(_("the lecture's worked example"), "np.random.seed(42)"))


def show(matrix, title, about: About, what: str, main: bool = False, **kw):
    """One matrix (plot_matrix) with its slide exports, named about.stem + what; main: the tab's main figure (first
    while presenting)."""
    _export.chart(plot_matrix(matrix, title=title, **kw), width="stretch", name=(*about.stem, what),
                  caption=about.caption, main=main)


def about_head(name: str, s: steps.HeadSteps, text: str) -> About:
    return About((name, file_label(s.layer, s.head)), caption_line(name, head_label(s.layer, s.head), text=text))


def stage_frames(s: steps.HeadSteps, token: int) -> list:
    """The One head tab's arithmetic in order, one figure maker per stage (X, LN₁(X) for pre-LN, Q, K, V, QKᵀ,
    QKᵀ/√d_k, softmax, Z), each titled "Step i of n: …": the frames of its GIF."""
    T, C, D, tok = len(s.tokens), s.X.shape[1], s.d_k, s.tokens
    stages = [(s.X, _("X: the token vectors entering {layer} ({T}, {C})").format(layer=layer_label(s.layer), T=T,
                                                                                   C=C), {})]
    if s.norm == "pre":
        stages.append((s.X_attn, _("LN₁(X): what the attention reads ({T}, {C})").format(T=T, C=C), {}))
    stages += [(getattr(s, n), f"{n} = X·W_{n} + b_{n} ({T}, {D})", {}) for n in "QKV"]
    square = dict(col_labels=tok, col_title=_("key"), highlight_row=token)
    stages += [(s.scores, _("scores QKᵀ ({T}, {T})").format(T=T), square),
               (s.scaled, _("QKᵀ/√{D} ({T}, {T})").format(D=D, T=T), square),
               (s.weights, _("weights = softmax(QKᵀ/√d_k) ({T}, {T})").format(T=T), dict(square, weights=True)),
               (s.Z, _("Z = weights·V ({T}, {D})").format(T=T, D=D), dict(highlight_row=token))]
    n = len(stages)
    return [partial(plot_matrix, m, title=_("Step {k} of {n}: {title}").format(k=i + 1, n=n, title=title),
                    row_labels=tok, **kw)
            for i, (m, title, kw) in enumerate(stages)]


def agreement_table(diffs: dict):
    st.dataframe(pd.DataFrame({_("computed another way"): [_(k) for k in diffs],
                               _("max |difference| to the row form"): [plain(v) for v in diffs.values()],
                               _("exact"): [repr(float(v)) for v in diffs.values()]}),
                 hide_index=True)


# ---- the lecture ------------------------------------------------------------------------------
def lecture_section():
    st.markdown(_("The lecture draws two token vectors of width 4 and three projections to d_k = 3, "
                  "every number rounded to 4 decimals, from NumPy's generator seeded with 42:"))
    st.code("np.random.seed(42)\nX = np.random.randn(2, 4).round(4)\n"
            "W_Q, W_K, W_V = (np.random.randn(4, 3).round(4) for _ in range(3))   # in this order", "python")
    ex = reference.worked_example()
    rows = [_("token {n}").format(n=1), _("token {n}").format(n=2)]
    lecture = lecture_about()
    for pair in (("X", "W_Q"), ("W_K", "W_V")):
        for col, name in zip(st.columns(2), pair):
            with col:
                show(ex[name], f"{name} {ex[name].shape}", lecture, name, row_labels=rows if name == "X" else None,
                     row_title=_("token") if name == "X" else _("input dimension"), row_prefix="c")
    for col, name in zip(st.columns(3), ("Q", "K", "V")):
        with col:
            show(ex[name], f"{name} = X·W_{name} {ex[name].shape}", lecture, name, row_labels=rows)
    titles = {"scores": _("QKᵀ"), "scaled": _("QKᵀ/√3"), "weights": _("softmax(QKᵀ/√3)"), "Z": _("Z = weights·V")}
    for pair in (("scores", "scaled"), ("weights", "Z")):
        for col, name in zip(st.columns(2), pair):
            with col:
                show(ex[name], f"{titles[name]} {ex[name].shape}", lecture, name, row_labels=rows,
                     weights=name == "weights",
                     col_labels=None if name == "Z" else rows, col_title=_("dimension") if name == "Z" else _("key"))
    w, z = ex["weights"][0], ex["Z"][0]
    st.success(_("Row 1 of the weights: [{w0}, {w1}];  row 1 of Z: [{z0}, {z1}, {z2}]: the lecture's printed "
                 "numbers.").format(w0=f"{w[0]:.4f}", w1=f"{w[1]:.4f}", z0=f"{z[0]:.4f}", z1=f"{z[1]:.4f}",
                                    z2=f"{z[2]:.4f}"))
    column = reference.attention_column_form(ex["Q"], ex["K"], ex["V"])
    st.caption(_("The textbook's column form V·Softmax[KᵀQ/√D_q] with tokens as columns gives Zᵀ: largest "
                 "|difference| {diff}.").format(diff=plain(np.abs(column.T - ex['Z']).max())))
    # 12.2.3: no activation, yet not linear: doubling X doubles Q, K, V but multiplies the scores by 4
    z2, w2 = reference.attention(2 * ex["Q"], 2 * ex["K"], 2 * ex["V"])
    st.markdown(_("**Non-linear without an activation** (textbook 12.2.3). Feed this X doubled: Q, K and V double "
                  "(each is X times a matrix), but the scores QKᵀ grow four times, so the weights move: row 1 goes "
                  "from [{w0}, {w1}] to [{v0}, {v1}], and Sa(2X) differs from 2·Sa(X) by up to **{gap}**. A linear "
                  "map would give exactly 2·Sa(X); attention does not, because its weights are computed from the "
                  "input.").format(w0=f"{w[0]:.4f}", w1=f"{w[1]:.4f}", v0=f"{w2[0, 0]:.4f}", v1=f"{w2[0, 1]:.4f}",
                                   gap=f"{np.abs(z2 - 2 * ex['Z']).max():.4f}"))
    downloads(ex, "worked_example", rows, key="lecture")

    st.subheader(_("The exercise"))
    e = reference.exercise()
    st.markdown(_("One query scores **3** and **1** against two keys, d_k = 4, with v1 = [1, 0] and v2 = [0, 1]."))
    st.dataframe(pd.DataFrame({_("key"): ["k1", "k2"], _("score q·k"): e["scores"], "÷ √4": e["scaled"],
                               "exp": e["exp"], _("weight"): e["weights"]}).style.format(precision=4),
                 hide_index=True)
    st.markdown(_("Sum of the exponentials: **{total}**; weights **{a1}** / **{a2}**; z = a1·v1 + a2·v2 = "
                  "**[{z1}, {z2}]**.").format(total=f"{e['exp'].sum():.4f}", a1=f"{e['weights'][0]:.4f}",
                                              a2=f"{e['weights'][1]:.4f}", z1=f"{e['z'][0]:.4f}",
                                              z2=f"{e['z'][1]:.4f}"))


# ---- why √d_k -----------------------------------------------------------------------------------
def predict_scaling(model, s: steps.HeadSteps, token: int, mask) -> bool:
    """Predict first: what softmax gives the real scores of the query token without the ÷√d_k, in the head of the
    live layer that spreads that token's weights the most (a one-hot row has no room to sharpen); once revealed,
    both weight rows side by side. True when the answer may be shown."""
    heads = [steps.head_steps(model, s.X, s.layer, h, mask, s.tokens) for h in range(model.config.n_heads)]
    s = min(heads, key=lambda one: one.weights[token].max())
    D = s.d_k
    row = np.where(np.isfinite(s.scaled[token]), s.scores[token], -np.inf)  # (T,) q·k, −inf where masked
    ex = steps.without_scaling(row, D)
    label = _url.word_labels(s.tokens)[token]                             # "it", not the BPE piece " it"
    name, word = head_label(s.layer, s.head), md(label)
    question = _("Of the {n} heads of **{layer}**, **{head}** spreads the query **{word}** the most: it scores q·k "
                 "against {keys} keys, divides by √d_k = √{D} ≈ {root}, and its largest weight after the softmax is "
                 "**{top}**. Without the division, what would softmax(q·k) give?").format(
        n=len(heads), layer=layer_label(s.layer), head=head_only(s.head), word=word, keys=int(np.isfinite(row).sum()),
        D=D, root=f"{np.sqrt(D):.2f}", top=f"{ex['max_scaled']:.3f}")
    explain = _("Largest weight **{scaled}** with ÷√{D}, **{unscaled}** without; entropy {h_scaled} vs {h_unscaled} "
                "nats. Without the division the scores are {root} times further apart, and softmax turns larger gaps "
                "into a sharper peak (“more peaked”: the largest weight grows by more than {within})").format(
        scaled=f"{ex['max_scaled']:.3f}", D=D, unscaled=f"{ex['max_unscaled']:.3f}",
        h_scaled=f"{ex['entropy_scaled']:.3f}", h_unscaled=f"{ex['entropy_unscaled']:.3f}", root=f"{np.sqrt(D):.2f}",
        within=steps.SAME_WITHIN)
    explain += (_(": this row is already almost one-hot, with little room left.") if ex["max_scaled"] > 0.95 else
                _("."))
    if not _predict.predict("steps_predict", question, steps.CHANGES, ex["change"], explain,
                            format_func=lambda change: _(CHANGE_LABELS[change])):
        return False
    _export.chart(plot_softmax_bars({_("scaled: softmax(q·k/√{D})").format(D=D): ex["weights_scaled"],
                                     _("no scaling: softmax(q·k)"): ex["weights_unscaled"]}, keys=s.tokens,
                                    title=_("{head}, query “{word}”: the real scores, with and without "
                                            "÷√d_k").format(head=name, word=esc(label))),
                  width="stretch", key="steps_predict_bars", name=(name, "softmax_with_and_without_scaling"),
                  caption=caption_line(name, text=label))
    return True


def scaling_section(live=None):
    """live: (model, HeadSteps, query token, mask) of the sidebar's model, asked about first; None without one."""
    if live is not None and not predict_scaling(*live):
        return
    st.markdown(_("For random q and k with unit-variance entries, q·k has variance d_k. Without the scaling "
                  "the scores spread out as d_k grows, softmax puts almost all weight on one key, and its "
                  "gradient vanishes. Dividing by √d_k keeps the variance at 1."))
    left, right = st.columns([3, 1])
    d_k = left.select_slider("d_k", D_KS, value=64, key="steps_dk", bind=BIND, persist_state=KEEP)
    unscaled = right.toggle(_("No scaling"), key="steps_no_scaling", bind=BIND, persist_state=KEEP,
                            help=_("Feed softmax q·k instead of q·k/√d_k."))
    seed = right.number_input(_("Seed"), 0, 9999, 0, key="steps_seed", bind=BIND, persist_state=KEEP)
    ex = steps.softmax_example(d_k, scaled=not unscaled, n_keys=N_KEYS, seed=int(seed))
    a, b, c = st.columns(3)
    a.metric(_("largest weight"), f"{ex['max_weight']:.4f}")
    b.metric(_("‖∂softmax/∂scores‖"), f"{ex['grad_norm']:.4f}")
    c.metric(_("spread of the scores fed to softmax (std)"), f"{ex['logits'].std():.4f}")
    label = _("no scaling: softmax(q·k)") if unscaled else _("scaled: softmax(q·k/√d_k)")
    about = caption_line(f"d_k = {d_k}", _("no scaling") if unscaled else _("scaled by 1/√d_k"),
                         _("seed {seed}").format(seed=int(seed)))
    _export.chart(plot_softmax_bars({label: ex["weights"]},
                                    title=_("one random query against {n} random keys, d_k = {d_k}").format(
                                        n=N_KEYS, d_k=d_k)),
                  width="stretch", name=("softmax_weights", f"dk{d_k}", "unscaled" if unscaled else "scaled"),
                  caption=about, main=True)
    curves = _runs.softmax_saturation(D_KS, N_KEYS, int(seed))
    _export.chart(plot_saturation(**curves, current=d_k, n_keys=N_KEYS), width="stretch",
                  name="softmax_saturation_against_dk", title=_("Why √d_k: softmax saturates as d_k grows"),
                  caption=caption_line(_("{n} random keys").format(n=N_KEYS), _("seed {seed}").format(seed=int(seed))))


# ---- the live model -----------------------------------------------------------------------------
def live_controls(name: str, model):
    c = model.config
    _url.clipped_link_text("steps_text", MAX_CHARS)
    text = _resources.clip_text(st.text_input(_("Text"), DEFAULT_TEXT, key="steps_text", max_chars=MAX_CHARS,
                                              bind=_url.text_bind("steps_text"), persist_state=KEEP))
    if not text.strip():
        st.warning(_("The text is empty; showing the default sentence."))
        text = DEFAULT_TEXT
    inputs = _runs.step_layer_inputs(name, _resources.device(), text, steps.MAX_TOKENS)
    tokens, notices, hidden = inputs.tokens, inputs.notices, inputs.hidden
    for n in notices:
        st.info(md(str(n)))
    T = len(tokens)
    words = _url.word_labels(tokens)              # the token is picked by word: a link survives a new tokenizer
    first_token = words.index("it") if "it" in words else min(1, T - 1)     # a BPE piece is " it"
    _url.stale_link("steps_layer", [layer_label(i) for i in range(c.n_layers)], _("layer"), layer_label(0))
    _url.stale_link("steps_head", [head_only(i) for i in range(c.n_heads)], _("head"), head_only(0))
    _url.stale_link("steps_token", words, _("the word"), words[first_token])
    # a stored value may be stale (text or model changed) or the browser's old label (a str): validate first
    _state.keep_valid_choice("steps_layer", range(c.n_layers), layer_label)
    _state.keep_valid_choice("steps_head", range(c.n_heads), head_only)
    _state.keep_valid_choice("steps_token", range(T), words.__getitem__, first_token)
    st.session_state.setdefault("steps_token", first_token)
    a, b, d = st.columns(3)
    layer = a.selectbox(_("Layer"), range(c.n_layers), key="steps_layer", format_func=layer_label, bind=BIND,
                        persist_state=KEEP)
    head = b.selectbox(_("Head"), range(c.n_heads), key="steps_head", format_func=head_only, bind=BIND,
                       persist_state=KEEP)
    token = d.selectbox(_("Query token"), range(T), key="steps_token", format_func=words.__getitem__, bind=BIND,
                        help=_("A word seen again is numbered: “it (2)”."))
    return text, tokens, hidden, layer, head, token


def one_head_section(model, s: steps.HeadSteps, token: int, mask, about: About):
    tok = s.tokens
    C, D, T = s.X.shape[1], s.d_k, len(tok)
    st.markdown(_("T = {T} tokens, d_model = C = {C}, {H} heads of D = d_k = d_v = {D}, {norm}. Cells are rounded "
                  "to 4 decimals; hover for the exact value.").format(
        T=T, C=C, H=model.config.n_heads, D=D, norm=_("post-LN (the paper)") if s.norm == "post" else _("pre-LN")))
    st.caption(_("q and k must have the same size, since each score is their dot product; v may have another "
                 "(textbook 12.2.2): it is only weighted and summed, and its size sets the output's (for one head, "
                 "usually the input's D). This model gives each of its {H} heads d_k = d_v = d_model / H = "
                 "{C} / {H} = {D}.").format(H=model.config.n_heads, C=C, D=D))
    show(s.X, _("X: the token vectors entering {layer} ({T}, {C})").format(layer=layer_label(s.layer), T=T, C=C),
         about, "X", row_labels=tok)
    if s.norm == "pre":
        show(s.X_attn, _("LN₁(X): what a pre-LN layer's attention reads ({T}, {C})").format(T=T, C=C), about,
             "LN1_X", row_labels=tok)
    cols = st.columns(3)
    for col, n in zip(cols, "QKV"):
        with col:
            show(getattr(s, f"W_{n}"), f"W_{n}, {head_label(s.layer, s.head)} ({C}, {D})", about, f"W_{n}",
                 row_title=_("input dimension"), row_prefix="c", height=600)
    show(np.stack([s.b_Q, s.b_K, s.b_V]), _("biases b_Q, b_K, b_V ({D},)").format(D=D), about, "biases",
         row_labels=["b_Q", "b_K", "b_V"],
         row_title=_("bias"))
    cols = st.columns(3)
    for col, n in zip(cols, "QKV"):
        with col:
            show(getattr(s, n), f"{n} = X·W_{n} + b_{n} ({T}, {D})", about, n, row_labels=tok)
    # one (T, T) matrix per row of the page: wide enough for a number in every cell
    for m, title, w, what in ((s.scores, _("scores QKᵀ ({T}, {T})"), False, "scores"),
                              (s.scaled, _("QKᵀ/√{D} ({T}, {T})"), False, "scaled"),
                              (s.weights, _("weights = softmax(QKᵀ/√d_k) ({T}, {T})"), True, "weights")):
        show(m, title.format(T=T, D=D), about, what, main=w, row_labels=tok, col_labels=tok, col_title=_("key"),
             weights=w, highlight_row=token)
    show(s.Z, _("Z = weights·V ({T}, {D}); the outlined row is the query token's z").format(T=T, D=D), about, "Z",
         row_labels=tok, highlight_row=token)
    frames = stage_frames(s, token)
    _export.gif(lambda i: frames[i](), len(frames), name=(*about.stem, "steps"), caption=about.caption, key="steps",
                signature=(about.stem, tuple(tok), token), what=_("stage of the arithmetic"))

    st.markdown(_("**Query token {i} · “{token}”**, key by key:").format(i=token, token=md(tok[token])))
    st.dataframe(pd.DataFrame({_("key"): [f"{j} · {t}" for j, t in enumerate(tok)], "q·k": s.scores[token],
                               f"÷ √{D}": s.scaled[token], _("weight"): s.weights[token]}).style.format(precision=4),
                 hide_index=True, height=min(400, 36 * T + 40))
    st.markdown(_("z = Σⱼ weightⱼ · vⱼ = {values}").format(
        values="[" + ", ".join(f"{v:.4f}" for v in s.Z[token][:8]) + (", …]" if D > 8 else "]")))

    st.markdown("#### " + _("Two conventions, one result"))
    st.latex(r"\text{" + _("rows:") + r" } Z = \mathrm{softmax}\!\left(\tfrac{QK^\top}{\sqrt{d_k}}\right)V"
             r"\qquad \text{" + _("columns:") + r" } Z' = V'\cdot\mathrm{Softmax}"
             r"\!\left[\tfrac{K'^\top Q'}{\sqrt{D_q}}\right],\; Q' = Q^\top,\; K' = K^\top,\; V' = V^\top")

    col = reference.attention_column_form(s.Q, s.K, s.V, mask)
    show(col, _("Z' in column form ({D}, {T}): tokens are columns; its transpose is Z").format(D=D, T=T), about,
         "Z_column_form", row_title=_("dimension"),
         row_prefix="d", col_labels=tok, col_title=_("token"), height=min(700, 18 * D + 160))

    agreement_table(steps.agreement(s, model, mask))
    downloads(s.arrays(), file_label(s.layer, s.head), tok, key="live")


def multi_head_section(model, s: steps.HeadSteps, mask, about: About):
    mh = steps.multi_head(model, s.X, s.layer, mask)
    H, T, D = mh["heads"].shape
    C = H * D
    st.markdown(_("{H} heads × Z_h ({T}, {D}) → concatenate → ({T}, {H}·{D} = {C}) → · W_O ({C}, {C}) + b_O "
                  "→ ({T}, {C}), back to d_model.").format(H=H, T=T, D=D, C=C))
    st.caption(_("The tutorial's Transformer (the paper's base model) has d_model = {d} and h = {h} heads, so each "
                 "head works in d_k = {d} / {h} = {dk} dimensions; this model: {C} / {H} = {D}.").format(
        d=published.TUTORIAL.d_model, h=published.TUTORIAL.heads, dk=published.TUTORIAL.d_k, C=C, H=H, D=D))
    about = About((about.stem[0], layer_label(s.layer)), about.caption.replace(head_label(s.layer, s.head),
                                                                                 layer_label(s.layer), 1))
    show(mh["concat"], _("Concat(Z_1 … Z_{H}) ({T}, {C}); black lines separate the heads").format(H=H, T=T, C=C),
         about, "concat", row_labels=s.tokens,
         col_groups=D)
    show(mh["W_O"], f"W_O ({C}, {C})", about, "W_O", row_title=_("concatenated dimension"), row_prefix="c",
         height=700)
    show(mh["out"], _("MultiHead(X) = Concat·W_O + b_O ({T}, {C})").format(T=T, C=C), about, "multihead", True,
         row_labels=s.tokens)
    live = steps.explicit_path(model, s.X, s.layer, mask)
    st.caption(_("Largest |difference| to the model's own output for this layer's attention: {diff}").format(
        diff=plain(np.abs(live['out'] - mh['out']).max())))
    downloads({k: v for k, v in mh.items() if k != "weights"}, f"{layer_label(s.layer)}_multihead", s.tokens, key="mh")


def layer_section(model, s: steps.HeadSteps, hidden, token: int, mask, about: About):
    own = model.config.norm
    st.markdown(_("Token {i} · “{token}” through {layer}. This model is **{norm}**; the other arrangement is "
                  "computed with the same weights as a what-if (the model was not trained that way).").format(
        i=token, token=md(s.tokens[token]), layer=layer_label(s.layer),
        norm=_("post-LN") if own == "post" else _("pre-LN")))
    if own == "post":
        st.caption(_("This model was trained post-LN, so the left column is the textbook's and the lecture's layer, "
                     "LayerNorm(x + Sublayer(x)), exactly as the model computes it, not a what-if."))
    if model.config.activation != "relu":
        st.caption(_("The paper's FFN uses ReLU; this model was trained with GELU, so GELU is shown."))
    cols = st.columns(2)
    for col, norm in zip(cols, ("post", "pre")):
        trace = steps.layer_trace(model, s.X, s.layer, token, mask, norm)
        with col:
            title = (_("post-LN: LN(x + Sublayer(x)), the paper") if norm == "post"
                     else _("pre-LN: x + Sublayer(LN(x))"))

            st.markdown(f"**{title}**" + (_(" (this model)") if norm == own else _(" (what-if)")))
            _export.chart(plot_trace([t.name for t in trace], [t.norm for t in trace], [t.mean for t in trace],
                                     [t.var for t in trace]), width="stretch", key=f"trace_{norm}",
                          name=(about.stem[0], layer_label(s.layer), f"token{token}", f"{norm}_LN"),
                          title=_("Token {i} through {layer}: {title}").format(i=token, layer=layer_label(s.layer),
                                                                              title=title),
                          caption=about.caption.replace(head_label(s.layer, s.head), layer_label(s.layer), 1))
            st.dataframe(pd.DataFrame({_("step"): [t.name for t in trace], _("formula"): [t.formula for t in trace],
                                       "‖v‖": [t.norm for t in trace], _("mean"): [t.mean for t in trace],
                                       _("variance"): [t.var for t in trace]}).style.format(precision=4),
                         hide_index=True)
            if norm == own:
                diff = np.abs(trace[-1].vector - hidden[s.layer + 1][token]).max()
                st.caption(_("Largest |difference| to the model's own layer output: {diff}").format(diff=plain(diff)))
    norm_comparison_section(model, s, token, mask)


def norm_comparison_section(model, s: steps.HeadSteps, token: int, mask):
    """LayerNorm against BatchNorm on the activations this layer's first LayerNorm reads."""
    x = norms.first_norm_input(model, s.X, s.layer, mask)
    c = norms.compare(x, token)
    T, C = x.shape
    what = (_("X + MultiHead(X), the sum its first Add & Norm normalises") if model.config.norm == "post"
            else _("X, which its first LayerNorm normalises before attention"))
    st.markdown("#### " + _("LayerNorm, not BatchNorm"))
    st.markdown(_("The same activations of {layer}: {what}, T = {T} tokens × C = {C} dimensions, with the tokens of "
                  "the text as the batch. **LayerNorm** standardises each row (one token over its own C dimensions, "
                  "as the textbook's 12.4 says); **BatchNorm** each column (one dimension over the batch). Only the "
                  "standardising step is drawn; each then applies its own learned γ and β.").format(
        layer=layer_label(s.layer), what=what, T=T, C=C))
    about = caption_line(layer_label(s.layer), text=" ".join(s.tokens))
    _export.chart(plot_norm_heatmaps(c.x, c.layer, c.batch, tokens=s.tokens), key="norm_heatmaps", main=True,
                  name=(layer_label(s.layer), "layernorm_vs_batchnorm"), caption=about)
    stats = {k: dict(zip(("token_mean", "token_std", "dim_mean", "dim_std"), (*c.stats(k, 1), *c.stats(k, 0))))
             for k in ("x", "layer", "batch")}
    _export.chart(plot_norm_stats(stats, tokens=s.tokens), key="norm_stats",
                  name=(layer_label(s.layer), "layernorm_vs_batchnorm_statistics"), caption=about)
    ln_mean, ln_std = c.stats("layer", 1)
    bn_mean, bn_std = c.stats("batch", 0)
    st.table(pd.DataFrame({
        "LayerNorm": [_("each token (row), over its C dimensions"), plain(np.abs(ln_mean).max()),
                      plain(np.abs(ln_std - 1).max()), plain(c.layer_alone_change)],
        "BatchNorm": [_("each dimension (column), over the T tokens"), plain(np.abs(bn_mean).max()),
                      plain(np.abs(bn_std - 1).max()), plain(c.batch_prefix_change)]},
        index=[_("standardises"), _("largest |mean| along it"), _("largest |std − 1| along it"),
               _("largest change of “{token}” with fewer tokens").format(token=s.tokens[token])]))
    st.caption(_("With fewer tokens: “{token}” normalised alone (LayerNorm), or in a batch of only the tokens up to "
                 "it (BatchNorm). Its LayerNorm is the same whatever else is in the text or the batch, so it works for "
                 "one sentence, any length, and at generation time one token at a time; its BatchNorm moves when the "
                 "other tokens change, and a batch of one token would be all zeros. (The |std − 1| left is ε at work: "
                 "√(σ² / (σ² + ε)) is a little under 1.)").format(token=md(s.tokens[token])))


def causal_section(model, s: steps.HeadSteps, about: About):
    T = len(s.tokens)
    mask = np.tril(np.ones((T, T), dtype=bool))
    c = steps.head_steps(model, s.X, s.layer, s.head, mask, s.tokens)
    st.markdown(_("The same head on the same X, with the decoder's causal mask: token i may attend to keys 0…i. "
                  "Forbidden scores become −∞ before the softmax, so their weights are exactly 0 after it."))
    if model.config.kind == "decoder":
        st.caption(_("This model is a decoder: the One head tab already runs with this mask."))
    show(c.scaled, _("masked QKᵀ/√d_k ({T}, {T}): −∞ above the diagonal").format(T=T), about, "causal_scaled",
         row_labels=s.tokens, col_labels=s.tokens,
         col_title=_("key"))
    show(c.weights, _("causal weights ({T}, {T})").format(T=T), about, "causal_weights", True, row_labels=s.tokens,
         col_labels=s.tokens, col_title=_("key"),
         weights=True)
    above = c.weights[~mask]
    a, b, d = st.columns(3)
    a.metric(_("weights above the diagonal"), f"{above.size}")
    b.metric(_("of them exactly 0.0"), f"{int((above == 0.0).sum())}")
    d.metric(_("largest |row sum − 1|"), plain(np.abs(c.weights.sum(1) - 1).max()))
    agreement_table(steps.agreement(c, model, mask))
    downloads(c.arrays(), f"{file_label(s.layer, s.head)}_causal", s.tokens, key="causal")


def render():
    st.title(_("Self-attention, step by step"))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    st.markdown(_("One attention step done on real numbers: any head of the trained model on a sentence you type, "
                  "and the lecture's small example."))
    name = _resources.selected_text_model()
    model = None
    if name is None:
        st.info(_("No trained text model is shipped in assets/ yet, so the live tabs have nothing to run. Train the "
                  "default one with `python -m model.train {name}`. The lecture's example and the √d_k tab work "
                  "without a model.").format(name=_resources.DEFAULT_TEXT_MODEL))
    else:
        model, _meta = _resources.model_or_stop(name)
        with st.container(border=True):
            st.caption(_("Live model: **{name}** (pick another in the sidebar); these controls drive the tabs "
                         "{tabs} (and the layer and token of {why}).").format(
                name=name, tabs=_(", ").join(_(t) for t in ("One head", "Multi-head", "The layer", "Causal mask")),
                why=_("Why √d_k")))
            text, tokens, hidden, layer, head, token = live_controls(name, model)
        mask = steps.model_mask(model, len(tokens))
        s = steps.head_steps(model, hidden[layer], layer, head, mask, tokens)
        about = about_head(name, s, text)

    # on_change="rerun" makes the tabs lazy: only the open tab's figures are computed and sent
    shown = [_(t) for t in TABS]
    _url.stale_link("steps_tab", shown, _("the tab"), shown[0])
    tabs = dict(zip(TABS, st.tabs(shown, key="steps_tab", on_change="rerun", bind=BIND)))
    if tabs["The lecture's example"].open:
        with tabs["The lecture's example"]:
            lecture_section()
    if tabs["Why √d_k"].open:
        with tabs["Why √d_k"]:
            scaling_section(None if model is None else (model, s, token, mask))
    live = {"One head": lambda: one_head_section(model, s, token, mask, about),
            "Multi-head": lambda: multi_head_section(model, s, mask, about),
            "The layer": lambda: layer_section(model, s, hidden, token, mask, about),
            "Causal mask": lambda: causal_section(model, s, about)}
    for label, draw in live.items():
        if tabs[label].open:
            with tabs[label]:
                if model is None:
                    st.info(_("This tab needs a shipped text model (see above)."))

                else:
                    draw()
