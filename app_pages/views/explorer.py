"""Attention explorer: type text and see what every head of a trained model attends to. All heads
at once (one image), one head zoomed with exact weights, lines between tokens, per-head statistics
with automatic labels and their rules, attention rollout across layers, and downloads."""
import html

import pandas as pd
import streamlit as st

from app_pages import _export, _first_view, _present, _resources, _runs, _state, _url
from app_pages.views import explorer_ablation, explorer_norms, explorer_qk, explorer_summaries, explorer_why
from app_pages.views.explorer_view import View
from i18n import N_, _, ngettext
from labels import file_label, head_label, head_only, layer_label
from model import checkpoints
from model.analysis import attention_views as analysis
from model.analysis import head_roles, head_stats
from model.data import course_world as corpus
from viz import export, grid, head_view, slide
from viz import stats as stat_viz

CHIPS_OPEN_MAX = 24        # longer texts start with the token chips folded, so the maps fit a projector's screen
HEAD_VIEW_MAX = 80          # tokens drawn at once in the head view
KEEP = _url.KEEP             # the picks survive an emptied text box and a visit to another page
BIND = _url.BIND             # and every pick is in the URL: a copied link opens this view
TABS = [N_("Head view"), N_("Attends to & statistics"), N_("Rollout"), N_("Summaries"), N_("Ablation"),
        explorer_why.TAB, N_("Value norms"), N_("Queries & keys"), N_("Downloads")]
INSIDE = {"Summaries": explorer_summaries, "Ablation": explorer_ablation, explorer_why.TAB: explorer_why,
          "Value norms": explorer_norms, "Queries & keys": explorer_qk}    # tabs that look inside a head
STAT_NAMES = {"entropy": N_("entropy (nats)"), "entropy_fraction": N_("entropy ÷ uniform entropy"),
              "mean_distance": N_("mean distance (tokens)"), "self": N_("share on itself"),
              "previous": N_("share on previous token"), "cls": N_("share on [CLS]/[BOS]"),
              "sep": N_("share on [SEP]/[EOS]"), "coref": N_("pronoun → earlier word (max)"),
              "coref_resolved": N_("pronouns clearly pointed at one earlier word (share)")}


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
        tip = _("not in the vocabulary: read as [UNK]") if unk else _("id {id}").format(id=k)
        chips.append(f'<span title="{html.escape(tip)}" style="{style}border-radius:6px;padding:1px 5px;'
                     f'margin:2px;display:inline-block;background:#f7fbff">{html.escape(t)}'
                     f'<sub style="color:#666"> {i}·{k}</sub></span>')
    return '<div style="line-height:2.1">' + "".join(chips) + "</div>"


def _zoom_image(zoom, q_labels, k_labels, title: str, log: bool) -> str:
    """The zoomed head as a data: URL for a class's first view: the labelled SVG, or the PNG when too large."""
    if max(zoom.shape) <= export.SVG_MAX_TOKENS:
        return _first_view.svg_src(export.heatmap_svg(zoom, q_labels=q_labels, k_labels=k_labels, title=title,
                                                      log=log))
    return _first_view.png_src(export.heatmap_png(zoom, log=log))


def measured_roles(name: str, layers: int, heads: int) -> dict | None:
    """The roles of a shipped model's heads measured on held-out real text (`python -m model.head_roles NAME
    --write`), when stored for a model of this shape; None for a model this session trained."""
    if _resources.assets_of(name) is not None:
        return None
    data = head_roles.load(name, checkpoints.ASSETS)
    return data if data is not None and len(data["heads"]) == layers * heads else None


def caption(name: str, text: str, where: str | None = None) -> str:
    """The slide caption line: model, layer or head, the text read."""
    return slide.caption_line(name, where, text=text)


def render():
    st.title(_("Attention explorer"))
    top = _present.slot()                       # presenting: the zoomed head first, full width
    st.caption(_("Type text; every head of a trained model shows what each token attends to. Rows are queries "
                 "(the token that looks), columns keys (the token looked at); each row sums to 1."))

    name = _resources.selected_text_model(session=True)     # the models this session trained too
    if name is None:
        st.info(_("No shipped text model was found in assets/. Train one, e.g. "
                  "`python -m model.train coref_encoder`."))
        st.stop()
    model, meta = _resources.model_or_stop(name)
    max_len = model.config.max_len
    text = st.text_area(_("Text"), corpus.PARAGRAPH, key="explorer_text", height=110,
                        bind=_url.text_bind("explorer_text"), persist_state=KEEP,
                        help=_("Up to {chars:,} characters; the model reads at most {max_len} tokens.").format(
                            chars=_resources.MAX_TEXT_CHARS, max_len=max_len))
    _url.long_text_note("explorer_text")
    text = _resources.clip_text(text)
    if not text.strip():
        st.warning(_("Type some text to see its attention."))
        st.stop()

    run = _runs.explorer_run(name, _resources.device(), text)
    for notice in run.notices:
        st.warning(notice)
    tokens, weights = run.tokens, run.weights            # weights: (L, H, N, N)
    L, H, N = weights.shape[0], weights.shape[1], weights.shape[-1]
    n_unknown = sum(run.unknown)
    summary = ngettext("{n} token (model **{name}**, {layers} layers × {heads} heads, max {max_len} tokens)",
                       "{n} tokens (model **{name}**, {layers} layers × {heads} heads, max {max_len} tokens)",
                       N).format(n=N, name=name, layers=L, heads=H, max_len=max_len)
    if n_unknown:
        summary += _(" · {n} not in the vocabulary").format(n=n_unknown)
    with st.expander(summary, expanded=N <= CHIPS_OPEN_MAX):
        st.markdown(token_chips(tokens, run.ids, run.unknown), unsafe_allow_html=True)
        st.caption(_("Each chip: token, then position · id. Dashed red: not in the model's vocabulary "
                     "(read as [UNK])."))
    as_words = False
    if any(len(w) > 1 for w in run.words) and st.toggle(
            _("Whole words"), True, key="explorer_words", bind=BIND, persist_state=KEEP,
            help=_("Attention to a word is the sum over its pieces; from a word, the mean of its pieces' rows "
                   "(Clark et al. 2019). Off: every piece on its own.")):
        tokens, as_words = run.word_texts, True
        weights = _runs.explorer_word_weights(name, _resources.device(), text)
        N = len(tokens)
        st.caption(_("Shown as {words} whole words made of {pieces} pieces.").format(words=N,
                                                                                       pieces=len(run.tokens)))

    pronoun = next((i for i, t in enumerate(tokens) if t.strip().lower() in head_stats.PRONOUNS), 0)
    words = _url.word_labels(tokens)              # the token is picked by word: a link survives a new tokenizer
    _url.stale_link("explorer_layer", [layer_label(i) for i in range(L)], _("layer"), layer_label(0))
    _url.stale_link("explorer_head", [head_only(i) for i in range(H)], _("head"), head_only(0))
    _url.stale_link("explorer_token", words, _("the word"), words[pronoun])
    _state.clamp_index("explorer_layer", L)
    _state.clamp_index("explorer_head", H)
    _state.clamp_index("explorer_token", N, pronoun)
    if st.session_state.get("explorer_token_tokens") != tokens:   # new text: the old index names another word
        st.session_state["explorer_token_tokens"] = tokens
        st.session_state["explorer_token"] = pronoun
    if any(not isinstance(h, int) or h >= H for h in st.session_state.get("explorer_heads", [])):
        del st.session_state["explorer_heads"]
    c1, c2, c3, c4, c5 = st.columns([1, 1, 1.7, 1.1, 1.6])      # wide enough for the toggles' labels at 1280 px
    layer = c1.selectbox(_("Layer"), range(L), key="explorer_layer", format_func=layer_label, bind=BIND,
                         persist_state=KEEP)
    head = c2.selectbox(_("Head"), range(H), key="explorer_head", format_func=head_only, bind=BIND, persist_state=KEEP)
    picked = c3.selectbox(_("Token"), range(N), key="explorer_token", format_func=words.__getitem__, bind=BIND,
                          help=_("The query token for the head view, the bars and rollout (a word seen again is "
                                 "numbered: “it (2)”)."))
    log = c4.toggle(_("Log colour"), key="explorer_log", bind=BIND, persist_state=KEEP,
                    help=_("Colour by log10(weight) from 1e-4 to 1; hover stays exact."))
    hide = c5.toggle(_("Hide special tokens"), key="explorer_hide", bind=BIND, persist_state=KEEP,
                     help=_("Drop [CLS], [SEP], [PAD], [BOS], [EOS] rows and columns in the zoom and renormalise "
                            "each row."))

    view = View(name, _resources.device(), text, run, as_words, tokens, weights, layer, head, picked, log)
    stats = head_stats.head_stats(weights, tokens)
    labels = head_stats.label_heads(stats)
    measured = measured_roles(name, L, H)       # on held-out text, not on this one
    roles = [[measured["heads"].get(head_label(lay, h), {}).get("roles", []) if measured else [] for h in range(H)]
             for lay in range(L)]
    cell, measured_cell = _("entropy {entropy:.2f} · distance {distance:.1f}"), _("measured: {roles}")
    cell_text = [[cell.format(entropy=stats["entropy"][lay, h], distance=stats["mean_distance"][lay, h])
                  + (f"<br>{', '.join(_(x) for x in labels[lay][h])}" if labels[lay][h] else "")
                  + ("<br>" + measured_cell.format(roles=", ".join(map(head_roles.role_label, roles[lay][h])))
                     if roles[lay][h] else "")
                  for h in range(H)] for lay in range(L)]

    visit = _first_view.count("explorer")       # on a class's server the first visit draws images (_first_view)
    left, right = st.columns([1, 1])
    with left:
        st.subheader(_("All heads"))
        grid_fig, grid_img = grid.plot_grid(weights, log=log, picked=(layer, head), cell_text=cell_text)
        _first_view.figure(
            "explorer-grid", visit, lambda: grid_img.src,
            _("All heads: {layers} layers × {heads} heads").format(layers=L, heads=H),
            lambda: _export.chart(grid_fig, key="explorer_grid", on_select=_pick_cell, selection_mode="points",
                                  width="stretch", name=(name, "all_heads"), title=_("All heads"),
                                  caption=caption(name, text)))
        size = dict(layers=L, heads=H, px=grid_img.cell, kb=len(grid_img.png) / 1024)
        st.caption(_("One image of {layers}×{heads} maps, {px} px each ({kb:,.0f} KB, averaged over blocks of "
                     "tokens to fit the screen). Click a map to zoom it.").format(**size) if grid_img.cell < N else
                   _("One image of {layers}×{heads} maps, {px} px each ({kb:,.0f} KB). Click a map to zoom it.")
                   .format(**size))
    with top if top is not None else right:
        st.subheader(head_label(layer, head))
        zoom = weights[layer, head]
        q_labels = k_labels = tokens
        shown_rows = range(N)
        if hide:
            keep = analysis.keep_positions(tokens)
            if len(keep) == 0:
                st.warning(_("Every token is special; nothing is left to show."))
            else:
                zoom, removed = analysis.renormalised(zoom, keep)
                q_labels = k_labels = [tokens[i] for i in keep]
                shown_rows = keep
                st.info(_("Special tokens hidden. Each row is renormalised: divided by the weight it puts on the "
                          "tokens still shown (on average {removed:.1%} of the weight went to hidden tokens), so "
                          "rows sum to 1.").format(removed=removed))
        if len(q_labels):
            zoom_title = (_("{head} attention, special tokens hidden") if hide else _("{head} attention")).format(
                head=head_label(layer, head))

            def zoom_chart():
                fig = grid.plot_zoom(zoom, q_labels=q_labels, k_labels=k_labels, log=log)
                fig, clicks = explorer_why.clickable_zoom(view, fig, zoom, shown_rows, q_labels, k_labels)
                _export.chart(fig, key="explorer_zoom", width="stretch", name=(name, file_label(layer, head),
                                                                               "attention"),
                              **clicks, title=zoom_title, caption=caption(name, text, head_label(layer, head)))
            _first_view.figure("explorer-zoom", visit, lambda: _zoom_image(zoom, q_labels, k_labels, zoom_title, log),
                               zoom_title, zoom_chart)
        if N > 128 and not log:
            st.caption(_("Over {n} keys a row's weights are small (uniform would be {uniform:.4f}), so a linear "
                         "scale looks pale: turn on **Log colour**, or zoom in with the chart's tools.").format(
                n=N, uniform=1 / N))
        if labels[layer][head]:
            st.markdown(_("**Automatic labels:** {labels}").format(
                labels="; ".join(_("{label} ({rule})").format(label=_(x), rule=head_stats.rule(x))
                                 for x in labels[layer][head])))
        if measured:
            found = head_roles.evidence(measured, head_label(layer, head))
            n = measured["passages"]
            st.markdown(ngettext("**Measured on {n} held-out passage of real text:** {roles}",
                                 "**Measured on {n} held-out passages of real text:** {roles}", n).format(
                n=n, roles="; ".join(found) or _("none (no role reaches its threshold)")))

    # lazy tabs: only the open tab's content runs on a rerun
    tabs = [_(t) for t in TABS]                     # the URL holds the shown label
    _url.stale_link("explorer_tab", tabs, _("the tab"), tabs[0])
    lines_tab, stats_tab, rollout_tab, *inside, export_tab = st.tabs(tabs, key="explorer_tab", on_change="rerun",
                                                                    bind=BIND)
    if _first_view.light(visit):          # a class's first view: the tabs' charts come with the interactive rerun
        for tab in (lines_tab, stats_tab, rollout_tab, *inside, export_tab):
            if tab.open:
                tab.caption(_("Drawing the interactive charts…"))
        return _first_view.upgrade_soon(visit)
    for label, tab in zip(TABS[3:-1], inside):
        if tab.open:
            with tab:
                INSIDE[label].render(view)
    with lines_tab:
        if lines_tab.open:
            h1, h2, h3 = st.columns([2, 2, 1])
            shown = h1.multiselect(_("Heads"), range(H), list(range(H)), key="explorer_heads", format_func=head_only,
                                   bind=BIND, persist_state=KEEP)
            start = max(0, min(picked - HEAD_VIEW_MAX // 2, N - HEAD_VIEW_MAX)) if N > HEAD_VIEW_MAX else 0
            if N > HEAD_VIEW_MAX:
                start = h2.slider(_("First token shown"), 0, N - HEAD_VIEW_MAX, start,
                                  key=f"explorer_start_{picked}",
                                  help=_("The head view draws {n} tokens at a time.").format(n=HEAD_VIEW_MAX))
            min_w = h3.number_input(_("Hide lines below"), 0.0, 0.5, 0.02, step=0.01, key="explorer_min_w", bind=BIND,
                                    persist_state=KEEP)
            focus = st.toggle(_("Only the picked token's lines"), True, key="explorer_focus", bind=BIND,
                              persist_state=KEEP,
                              help=_("Left: what the picked token attends to. Right: which tokens attend to it."))
            lines = head_view.plot_head_view(weights[layer], tokens, heads=shown, picked=picked if focus else None,
                                             start=start, stop=start + HEAD_VIEW_MAX, min_weight=min_w)
            _export.chart(lines, key="explorer_lines", on_select=_pick_token, selection_mode="points",
                          width="stretch", name=(name, layer_label(layer), "head_view"),
                          title=_("Head view, {layer}: query → key, opacity = weight").format(layer=layer_label(layer)),
                          caption=caption(name, text, layer_label(layer)))
            st.caption(_("{layer}: a line from each query (left) to each key (right), opacity = weight, "
                         "colour = head; weights below {min_w:g} are not drawn. Click a token to pick it.").format(
                layer=layer_label(layer), min_w=min_w))
    with stats_tab:
        if stats_tab.open:
            st.markdown(_("**What `{token}` (token {i}) attends to in {layer}**").format(
                token=tokens[picked].replace("`", chr(39)), i=picked, layer=layer_label(layer)))
            _export.chart(stat_viz.plot_attends_to(weights[layer], tokens, picked, heads=range(H)),
                          key="explorer_bars", width="stretch",
                          name=(name, layer_label(layer), f"token{picked}", "attends_to"),
                          title=_("What “{token}” (token {i}) attends to").format(token=tokens[picked], i=picked),
                          caption=caption(name, text, layer_label(layer)))
            which = st.selectbox(_("Statistic"), list(STAT_NAMES), format_func=lambda k: _(STAT_NAMES[k]),
                                 key="explorer_stat", bind=BIND, persist_state=KEEP)
            _export.chart(stat_viz.plot_stat_map(stats[which], name=_(STAT_NAMES[which]), labels=labels),
                          key="explorer_statmap", width="stretch", name=(name, which, "by_head"),
                          title=_("{statistic}, every head").format(statistic=_(STAT_NAMES[which])),
                          caption=caption(name, text))
            table = pd.DataFrame([{_("head"): head_label(lay, h),
                                   **{_(STAT_NAMES[k]): stats[k][lay, h] for k in STAT_NAMES},
                                   _("labels"): ", ".join(_(x) for x in labels[lay][h])}
                                  for lay in range(L) for h in range(H)])
            st.dataframe(table, hide_index=True, width="stretch")
            st.markdown(_("**Label rules** (on this text):") + "\n"
                        + "\n".join(_("- **{label}**: {rule}").format(label=_(k), rule=head_stats.rule(k))
                                    for k in head_stats.RULES))
    with rollout_tab:
        if rollout_tab.open:
            roll = analysis.rollout(weights)
            upto = st.selectbox(_("Rollout through layer"), range(L), index=L - 1, key="explorer_rollout_layer",
                                format_func=layer_label, bind=BIND, persist_state=KEEP)
            _export.chart(grid.plot_zoom(roll[upto], q_labels=tokens, k_labels=tokens, log=log),
                          key="explorer_rollout", width="stretch", name=(name, "rollout", layer_label(upto)),
                          title=_("Attention rollout through {layer}").format(layer=layer_label(upto)),
                          caption=caption(name, text))
            st.caption(_("Attention rollout (Abnar & Zuidema 2020): each layer's head-averaged weights mixed "
                         "half-and-half with the identity (the residual path), rows renormalised, multiplied from "
                         "{first} up. Row i: how much of token i's representation after that layer traces back to "
                         "each input token.").format(first=layer_label(0)))
    with export_tab:
        if export_tab.open:
            stem = f"{name}_{file_label(layer, head)}"
            d1, d2, d3 = st.columns(3)
            # every file is made on click (a callable): nothing is rendered or held in memory for a button not pressed
            png, notices = grid_img.png, [str(n) for n in run.notices]     # str: in this session's language
            _export.download(_("Grid (PNG)"), lambda: png, (name, "all_heads"), "png", "image/png", where=d1,
                             key="explorer_file_grid", text=text)
            _export.download(_("Zoomed head (PNG)"), lambda: export.heatmap_png(zoom, log=log), stem, "png",
                             "image/png", where=d1, key="explorer_file_zoom_png", text=text)
            if max(zoom.shape) <= export.SVG_MAX_TOKENS:
                title = f"{name} {head_label(layer, head)}"
                _export.download(_("Zoomed head (SVG)"),
                                 lambda: export.heatmap_svg(zoom, q_labels=q_labels, k_labels=k_labels, title=title,
                                                            log=log),
                                 stem, "svg", "image/svg+xml", where=d2, key="explorer_file_zoom_svg", text=text)
            else:
                d2.caption(_("SVG export is offered up to {n} tokens; use the PNG.").format(n=export.SVG_MAX_TOKENS))
            _export.download(_("All weights (CSV)"), lambda: export.weights_csv(weights, tokens), (name, "weights"),
                             "csv", "text/csv", where=d3, key="explorer_file_csv", text=text)
            _export.download(_("All weights (JSON)"), lambda: export.weights_json(weights, tokens, model=name,
                                                                               notices=notices),
                             (name, "weights"), "json", "application/json", where=d3, key="explorer_file_json",
                             text=text)
            st.caption(_("CSV: one row per layer, head and query, one column per key ({rows:,} rows); JSON: "
                         "weights[layer][head][query][key]. 9 significant digits (exact float32). Every chart's "
                         "camera icon saves it as PNG.").format(rows=L * H * N))
