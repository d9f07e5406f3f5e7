"""Attention explorer: type text and see what every head of a trained model attends to. All heads
at once (one image), one head zoomed with exact weights, lines between tokens, per-head statistics
with automatic labels and their rules, attention rollout across layers, and downloads."""
import html

import pandas as pd
import streamlit as st

from app_pages import _export, _resources, _runs, _state, _url
from labels import file_label, head_label, head_only, layer_label
from model.analysis import attention_views as analysis
from model.analysis import head_stats
from model.data import course_world as corpus
from viz import export, grid, head_view, slide
from viz import stats as stat_viz

CHIPS_OPEN_MAX = 24        # longer texts start with the token chips folded, so the maps fit a projector's screen
HEAD_VIEW_MAX = 80          # tokens drawn at once in the head view
KEEP = _url.KEEP             # the picks survive an emptied text box and a visit to another page
BIND = _url.BIND             # and every pick is in the URL: a copied link opens this view
TABS = ["Head view", "Attends to & statistics", "Rollout", "Downloads"]
STAT_NAMES = {"entropy": "entropy (nats)", "entropy_fraction": "entropy ÷ uniform entropy",
              "mean_distance": "mean distance (tokens)", "self": "share on itself",
              "previous": "share on previous token", "cls": "share on [CLS]/[BOS]",
              "sep": "share on [SEP]/[EOS]", "coref": "pronoun → earlier word (max)",
              "coref_resolved": "pronouns clearly pointed at one earlier word (share)"}


def _pick_cell():
    """Grid click -> zoom that layer and head."""
    points = st.session_state["explorer_grid"]["selection"]["points"]
    for p in points:
        if p.get("curve_number") == 1 and isinstance(p.get("customdata"), list):
            st.session_state.explorer_layer, st.session_state.explorer_head = map(int, p["customdata"][:2])
            return


def _pick_token():
    """Head view click on a token -> pick it."""
    for p in st.session_state["explorer_lines"]["selection"]["points"]:
        if p.get("x") in (0, 1, 0.0, 1.0):
            st.session_state.explorer_token = int(p["y"])
            return


def token_chips(tokens, ids, unknown) -> str:
    """Escaped HTML chips: token, id and position; out-of-vocabulary pieces outlined in red."""
    chips = []
    for i, (t, k, unk) in enumerate(zip(tokens, ids, unknown)):
        style = "border:2px dashed #d62728;" if unk else "border:1px solid #c6dbef;"
        tip = "not in the vocabulary: read as [UNK]" if unk else f"id {k}"
        chips.append(f'<span title="{html.escape(tip)}" style="{style}border-radius:6px;padding:1px 5px;'
                     f'margin:2px;display:inline-block;background:#f7fbff">{html.escape(t)}'
                     f'<sub style="color:#666"> {i}·{k}</sub></span>')
    return '<div style="line-height:2.1">' + "".join(chips) + "</div>"


def caption(name: str, text: str, where: str | None = None) -> str:
    """The slide caption line: model, layer or head, the text read."""
    return slide.caption_line(name, where, text=text)


def render():
    st.title("Attention explorer")
    st.caption("Type text; every head of a trained model shows what each token attends to. Rows are queries "
               "(the token that looks), columns keys (the token looked at); each row sums to 1.")

    name = _resources.selected_text_model()
    if name is None:
        st.info("No shipped text model was found in assets/. Train one, e.g. `python -m model.train coref_encoder`.")
        st.stop()
    model, meta = _resources.model_or_stop(name)
    max_len = model.config.max_len
    text = st.text_area("Text", corpus.PARAGRAPH, key="explorer_text", height=110,
                        bind=_url.text_bind("explorer_text"), persist_state=KEEP,
                        help=f"Up to {_resources.MAX_TEXT_CHARS:,} characters; the model reads at most "
                             f"{max_len} tokens.")
    _url.long_text_note("explorer_text")
    text = _resources.clip_text(text)
    if not text.strip():
        st.warning("Type some text to see its attention.")
        st.stop()

    run = _runs.explorer_run(name, _resources.device(), text)
    for notice in run.notices:
        st.warning(notice)
    tokens, weights = run.tokens, run.weights            # weights: (L, H, N, N)
    L, H, N = weights.shape[0], weights.shape[1], weights.shape[-1]
    n_unknown = sum(run.unknown)
    with st.expander(f"{N} tokens (model **{name}**, {L} layers × {H} heads, max {max_len} tokens)"
                     + (f" · {n_unknown} not in the vocabulary" if n_unknown else ""), expanded=N <= CHIPS_OPEN_MAX):
        st.markdown(token_chips(tokens, run.ids, run.unknown), unsafe_allow_html=True)
        st.caption("Each chip: token, then position · id. Dashed red: not in the model's vocabulary (read as [UNK]).")
    if any(len(w) > 1 for w in run.words) and st.toggle(
            "Whole words", True, key="explorer_words", bind=BIND, persist_state=KEEP,
            help="Attention to a word is the sum over its pieces; from a word, the mean of its pieces' rows "
                 "(Clark et al. 2019). Off: every piece on its own."):
        tokens = run.word_texts
        weights = _runs.explorer_word_weights(name, _resources.device(), text)
        N = len(tokens)
        st.caption(f"Shown as {N} whole words made of {len(run.tokens)} pieces.")

    pronoun = next((i for i, t in enumerate(tokens) if t.strip().lower() in head_stats.PRONOUNS), 0)
    words = _url.word_labels(tokens)              # the token is picked by word: a link survives a new tokenizer
    _url.stale_link("explorer_layer", [layer_label(i) for i in range(L)], "layer", layer_label(0))
    _url.stale_link("explorer_head", [head_only(i) for i in range(H)], "head", head_only(0))
    _url.stale_link("explorer_token", words, "the word", words[pronoun])
    _state.clamp_index("explorer_layer", L)
    _state.clamp_index("explorer_head", H)
    _state.clamp_index("explorer_token", N, pronoun)
    if st.session_state.get("explorer_token_tokens") != tokens:   # new text: the old index names another word
        st.session_state["explorer_token_tokens"] = tokens
        st.session_state["explorer_token"] = pronoun
    if any(not isinstance(h, int) or h >= H for h in st.session_state.get("explorer_heads", [])):
        del st.session_state["explorer_heads"]
    c1, c2, c3, c4, c5 = st.columns([1, 1, 1.7, 1.1, 1.6])      # wide enough for the toggles' labels at 1280 px
    layer = c1.selectbox("Layer", range(L), key="explorer_layer", format_func=layer_label, bind=BIND,
                         persist_state=KEEP)
    head = c2.selectbox("Head", range(H), key="explorer_head", format_func=head_only, bind=BIND, persist_state=KEEP)
    picked = c3.selectbox("Token", range(N), key="explorer_token", format_func=words.__getitem__, bind=BIND,
                          help="The query token for the head view, the bars and rollout (a word seen again is "
                               "numbered: “it (2)”).")
    log = c4.toggle("Log colour", key="explorer_log", bind=BIND, persist_state=KEEP,
                    help="Colour by log10(weight) from 1e-4 to 1; hover stays exact.")
    hide = c5.toggle("Hide special tokens", key="explorer_hide", bind=BIND, persist_state=KEEP,
                     help="Drop [CLS], [SEP], [PAD], [BOS], [EOS] rows "
                     "and columns in the zoom and renormalise each row.")

    stats = head_stats.head_stats(weights, tokens)
    labels = head_stats.label_heads(stats)
    cell_text = [[f"entropy {stats['entropy'][lay, h]:.2f} · distance {stats['mean_distance'][lay, h]:.1f}"
                  + (f"<br>{', '.join(labels[lay][h])}" if labels[lay][h] else "")
                  for h in range(H)] for lay in range(L)]

    left, right = st.columns([1, 1])
    with left:
        st.subheader("All heads")
        grid_fig, grid_img = grid.plot_grid(weights, log=log, picked=(layer, head), cell_text=cell_text)
        _export.chart(grid_fig, key="explorer_grid", on_select=_pick_cell, selection_mode="points", width="stretch",
                      name=(name, "all_heads"), title="All heads", caption=caption(name, text))
        st.caption(f"One image of {L}×{H} maps, {grid_img.cell} px each ({len(grid_img.png) / 1024:,.0f} KB"
                   + (", averaged over blocks of tokens to fit the screen" if grid_img.cell < N else "")
                   + "). Click a map to zoom it.")
    with right:
        st.subheader(head_label(layer, head))
        zoom = weights[layer, head]
        q_labels = k_labels = tokens
        if hide:
            keep = analysis.keep_positions(tokens)
            if len(keep) == 0:
                st.warning("Every token is special; nothing is left to show.")
            else:
                zoom, removed = analysis.renormalised(zoom, keep)
                q_labels = k_labels = [tokens[i] for i in keep]
                st.info(f"Special tokens hidden. Each row is renormalised: divided by the weight it puts on the "
                        f"tokens still shown (on average {removed:.1%} of the weight went to hidden tokens), so "
                        "rows sum to 1.")
        if len(q_labels):
            _export.chart(grid.plot_zoom(zoom, q_labels=q_labels, k_labels=k_labels, log=log),
                          key="explorer_zoom", width="stretch", name=(name, file_label(layer, head), "attention"),
                          title=f"{head_label(layer, head)} attention" + (", special tokens hidden" if hide else ""),
                          caption=caption(name, text, head_label(layer, head)))
        if N > 128 and not log:
            st.caption(f"Over {N} keys a row's weights are small (uniform would be {1 / N:.4f}), so a linear scale "
                       "looks pale: turn on **Log colour**, or zoom in with the chart's tools.")
        if labels[layer][head]:
            st.markdown("**Automatic labels:** "
                        + "; ".join(f"{x} ({head_stats.RULES[x]})" for x in labels[layer][head]))

    # lazy tabs: only the open tab's content runs on a rerun
    _url.stale_link("explorer_tab", TABS, "the tab", TABS[0])
    lines_tab, stats_tab, rollout_tab, export_tab = st.tabs(TABS, key="explorer_tab", on_change="rerun", bind=BIND)
    with lines_tab:
        if lines_tab.open:
            h1, h2, h3 = st.columns([2, 2, 1])
            shown = h1.multiselect("Heads", range(H), list(range(H)), key="explorer_heads", format_func=head_only,
                                   bind=BIND, persist_state=KEEP)
            start = max(0, min(picked - HEAD_VIEW_MAX // 2, N - HEAD_VIEW_MAX)) if N > HEAD_VIEW_MAX else 0
            if N > HEAD_VIEW_MAX:
                start = h2.slider("First token shown", 0, N - HEAD_VIEW_MAX, start, key=f"explorer_start_{picked}",
                                  help=f"The head view draws {HEAD_VIEW_MAX} tokens at a time.")
            min_w = h3.number_input("Hide lines below", 0.0, 0.5, 0.02, step=0.01, key="explorer_min_w", bind=BIND,
                                    persist_state=KEEP)
            focus = st.toggle("Only the picked token's lines", True, key="explorer_focus", bind=BIND,
                              persist_state=KEEP,
                              help="Left: what the picked token attends to. Right: which tokens attend to it.")
            lines = head_view.plot_head_view(weights[layer], tokens, heads=shown, picked=picked if focus else None,
                                             start=start, stop=start + HEAD_VIEW_MAX, min_weight=min_w)
            _export.chart(lines, key="explorer_lines", on_select=_pick_token, selection_mode="points",
                          width="stretch", name=(name, layer_label(layer), "head_view"),
                          title=f"Head view, {layer_label(layer)}: query → key, opacity = weight",
                          caption=caption(name, text, layer_label(layer)))
            st.caption(f"{layer_label(layer)}: a line from each query (left) to each key (right), opacity = weight, "
                       f"colour = head; weights below {min_w:g} are not drawn. Click a token to pick it.")
    with stats_tab:
        if stats_tab.open:
            st.markdown(f"**What `{tokens[picked].replace('`', chr(39))}` (token {picked}) attends to in "
                        f"{layer_label(layer)}**")
            _export.chart(stat_viz.plot_attends_to(weights[layer], tokens, picked, heads=range(H)),
                          key="explorer_bars", width="stretch",
                          name=(name, layer_label(layer), f"token{picked}", "attends_to"),
                          title=f"What “{tokens[picked]}” (token {picked}) attends to",
                          caption=caption(name, text, layer_label(layer)))
            which = st.selectbox("Statistic", list(STAT_NAMES), format_func=STAT_NAMES.get, key="explorer_stat",
                                 bind=BIND, persist_state=KEEP)
            _export.chart(stat_viz.plot_stat_map(stats[which], name=STAT_NAMES[which], labels=labels),
                          key="explorer_statmap", width="stretch", name=(name, which, "by_head"),
                          title=f"{STAT_NAMES[which]}, every head", caption=caption(name, text))
            table = pd.DataFrame([{"head": head_label(lay, h), **{STAT_NAMES[k]: stats[k][lay, h] for k in STAT_NAMES},
                                   "labels": ", ".join(labels[lay][h])} for lay in range(L) for h in range(H)])
            st.dataframe(table, hide_index=True, width="stretch")
            st.markdown("**Label rules** (on this text):\n"
                        + "\n".join(f"- **{k}**: {v}" for k, v in head_stats.RULES.items()))
    with rollout_tab:
        if rollout_tab.open:
            roll = analysis.rollout(weights)
            upto = st.selectbox("Rollout through layer", range(L), index=L - 1, key="explorer_rollout_layer",
                                format_func=layer_label, bind=BIND, persist_state=KEEP)
            _export.chart(grid.plot_zoom(roll[upto], q_labels=tokens, k_labels=tokens, log=log),
                          key="explorer_rollout", width="stretch", name=(name, "rollout", layer_label(upto)),
                          title=f"Attention rollout through {layer_label(upto)}", caption=caption(name, text))
            st.caption("Attention rollout (Abnar & Zuidema 2020): each layer's head-averaged weights mixed "
                       f"half-and-half with the identity (the residual path), rows renormalised, multiplied from "
                       f"{layer_label(0)} up. "
                       "Row i: how "
                       "much of token i's representation after that layer traces back to each input token.")
    with export_tab:
        if export_tab.open:
            stem = f"{name}_{file_label(layer, head)}"
            d1, d2, d3 = st.columns(3)
            # every file is made on click (a callable): nothing is rendered or held in memory for a button not pressed
            png = grid_img.png
            d1.download_button("Grid (PNG)", lambda: png, f"{name}_all_heads.png", "image/png", on_click="ignore")
            d1.download_button("Zoomed head (PNG)", lambda: export.heatmap_png(zoom, log=log), f"{stem}.png",
                               "image/png", on_click="ignore")
            if max(zoom.shape) <= export.SVG_MAX_TOKENS:
                title = f"{name} {head_label(layer, head)}"
                d2.download_button("Zoomed head (SVG)",
                                   lambda: export.heatmap_svg(zoom, q_labels=q_labels, k_labels=k_labels, title=title,
                                                              log=log),
                                   f"{stem}.svg", "image/svg+xml", on_click="ignore")
            else:
                d2.caption(f"SVG export is offered up to {export.SVG_MAX_TOKENS} tokens; use the PNG.")
            d3.download_button("All weights (CSV)", lambda: export.weights_csv(weights, tokens), f"{name}_weights.csv",
                               "text/csv", on_click="ignore")
            d3.download_button("All weights (JSON)", lambda: export.weights_json(weights, tokens, model=name,
                                                                                 notices=run.notices),
                               f"{name}_weights.json", "application/json", on_click="ignore")
            st.caption(f"CSV: one row per layer, head and query, one column per key ({L * H * N:,} rows); JSON: "
                       f"weights[layer][head][query][key]. 9 significant digits (exact float32). Every chart's camera "
                       f"icon saves it as PNG.")
