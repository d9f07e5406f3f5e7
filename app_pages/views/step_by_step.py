"""Step by step: one self-attention step on real numbers. X, the head's W_Q, W_K, W_V, Q, K, V, QKᵀ,
the √d_k scaling, softmax, Z, in row form and in the textbook's column form; the lecture's worked
example and exercise; why √d_k; multi-head + W_O; a token through Add & Norm and the FFN; the causal mask. The
tabs "The lecture's example", "Why √d_k" and "The layer" are drawn by step_by_step_lecture.py, _scaling.py and
_layer.py; step_by_step_matrices.py shows the matrices and makes their files."""
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _state, _url
from app_pages._markup import md
from app_pages._numbers import plain
from app_pages.views import step_by_step_layer, step_by_step_lecture, step_by_step_scaling
from app_pages.views.step_by_step_matrices import About, agreement_table, downloads, show
from i18n import N_, _
from labels import file_label, head_label, head_only, layer_label
from model import reference
from model.analysis import published, steps
from viz.multi_head import plot_heads_side_by_side
from viz.slide import caption_line
from viz.steps import plot_matrix

DEFAULT_TEXT = "The restaurant refused to serve me a ham sandwich because it was too salty."
MAX_CHARS = 2000                      # the text box's limit, no more than a link carries (_url.URL_TEXT_MAX)
BIND, KEEP = _url.BIND, _url.KEEP     # every input is in the URL and survives a visit to another page
TABS = [N_("One head"), N_("The lecture's example"), N_("Why √d_k"), N_("Multi-head"), N_("The layer"),
        N_("Causal mask")]


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


# ---- the live model -----------------------------------------------------------------------------
def live_controls(name: str):
    """The text and picks of the live tabs -> (model name, model, text, tokens, hidden states, layer, head, token);
    on mostly Chinese text a Chinese model stands in for an English one (_resources.model_for_text)."""
    _url.clipped_link_text("steps_text", MAX_CHARS)
    text = _resources.clip_text(st.text_input(_("Text"), DEFAULT_TEXT, key="steps_text", max_chars=MAX_CHARS,
                                              bind=_url.text_bind("steps_text"), persist_state=KEEP))
    if not text.strip():
        st.warning(_("The text is empty; showing the default sentence."))
        text = DEFAULT_TEXT
    name = _resources.model_for_text(name, text)
    model, _meta = _resources.model_or_stop(name)
    c = model.config
    inputs = _runs.step_layer_inputs(name, _resources.device(), text, steps.MAX_TOKENS)
    tokens, notices, hidden = inputs.tokens, inputs.notices, inputs.hidden
    for n in notices:
        st.info(md(str(n)))
    T = len(tokens)
    words = _url.word_labels(tokens)              # the token is picked by word: a link survives a new tokenizer
    first_token = next((words.index(w) for w in ("it", "它") if w in words), min(1, T - 1))   # a BPE piece is " it"
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
    return name, model, text, tokens, hidden, layer, head, token


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
    _export.chart(plot_heads_side_by_side(mh["weights"], s.tokens, [head_label(s.layer, h) for h in range(H)],
                                          title=_("Each head's attention in {layer}, side by side").format(
                                              layer=layer_label(s.layer))),
                  key="mh_heads", width="stretch", name=(*about.stem, "heads"), caption=about.caption, main=True)
    show(mh["concat"], _("Concat(Z_1 … Z_{H}) ({T}, {C}); black lines separate the heads").format(H=H, T=T, C=C),
         about, "concat", row_labels=s.tokens,
         col_groups=D)
    show(mh["W_O"], f"W_O ({C}, {C})", about, "W_O", row_title=_("concatenated dimension"), row_prefix="c",
         height=700)
    show(mh["out"], _("MultiHead(X) = Concat·W_O + b_O ({T}, {C})").format(T=T, C=C), about, "multihead",
         row_labels=s.tokens)
    live = steps.explicit_path(model, s.X, s.layer, mask)
    st.caption(_("Largest |difference| to the model's own output for this layer's attention: {diff}").format(
        diff=plain(np.abs(live['out'] - mh['out']).max())))
    downloads({k: v for k, v in mh.items() if k != "weights"}, f"{layer_label(s.layer)}_multihead", s.tokens, key="mh")


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
        _resources.model_or_stop(name)
        with st.container(border=True):
            st.caption(_("Live model: **{name}** (pick another in the sidebar); these controls drive the tabs "
                         "{tabs} (and the layer and token of {why}).").format(
                name=name, tabs=_(", ").join(_(t) for t in ("One head", "Multi-head", "The layer", "Causal mask")),
                why=_("Why √d_k")))
            name, model, text, tokens, hidden, layer, head, token = live_controls(name)
        mask = steps.model_mask(model, len(tokens))
        s = steps.head_steps(model, hidden[layer], layer, head, mask, tokens)
        about = about_head(name, s, text)

    # on_change="rerun" makes the tabs lazy: only the open tab's figures are computed and sent
    shown = [_(t) for t in TABS]
    _url.stale_link("steps_tab", shown, _("the tab"), shown[0])
    tabs = dict(zip(TABS, st.tabs(shown, key="steps_tab", on_change="rerun", bind=BIND)))
    if tabs["The lecture's example"].open:
        with tabs["The lecture's example"]:
            step_by_step_lecture.lecture_section()
    if tabs["Why √d_k"].open:
        with tabs["Why √d_k"]:
            step_by_step_scaling.scaling_section(None if model is None else (model, s, token, mask))
    live = {"One head": lambda: one_head_section(model, s, token, mask, about),
            "Multi-head": lambda: multi_head_section(model, s, mask, about),
            "The layer": lambda: step_by_step_layer.layer_section(model, s, hidden, token, mask, about),
            "Causal mask": lambda: causal_section(model, s, about)}
    for label, draw in live.items():
        if tabs[label].open:
            with tabs[label]:
                if model is None:
                    st.info(_("This tab needs a shipped text model (see above)."))

                else:
                    draw()
