"""The explorer's tabs under the two main figures, lazy (only the open tab's content runs on a rerun): the head view
(lines from each query to each key), what the picked token attends to with every head's statistics, attention
rollout, the inside-a-head tabs (explorer_summaries, _ablation, _why, _norms, _qk) and the downloads."""
import pandas as pd
import streamlit as st

from app_pages import _export, _url
from app_pages.views import explorer_ablation, explorer_norms, explorer_qk, explorer_summaries, explorer_why
from app_pages.views.explorer_state import ExplorerState, zoom_of
from i18n import N_, _, ngettext
from labels import file_label, head_label, head_only, layer_label
from model.analysis import attention_views as analysis
from model.analysis import head_stats
from runtime import first_view
from viz import export, grid, head_view
from viz import stats as stat_viz
from viz.grid import GridImage

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


def open_tab() -> str | None:
    """The tab this run opens, as its label is shown: picked in this session, or from a link's address (on the
    link's first run the tabs are not yet in the session)."""
    return st.session_state.get("explorer_tab", st.query_params.get("explorer_tab"))


def _pick_token():
    """Head view click on a token -> pick it."""
    for p in st.session_state["explorer_lines"]["selection"]["points"]:
        if p.get("x") in (0, 1, 0.0, 1.0):
            st.session_state.explorer_token = int(p["y"])
            return


def tabs(state: ExplorerState, grid_img: GridImage):
    """Every tab; the open one drawn from `state` (on a class's first view, a note that its charts follow)."""
    shown = [_(t) for t in TABS]                     # the URL holds the shown label
    _url.stale_link("explorer_tab", shown, _("the tab"), shown[0])
    lines_tab, stats_tab, rollout_tab, *inside, export_tab = st.tabs(shown, key="explorer_tab", on_change="rerun",
                                                                    bind=BIND)
    if first_view.light(state.visit):      # a class's first view: the tabs' charts come with the interactive rerun
        for tab in (lines_tab, stats_tab, rollout_tab, *inside, export_tab):
            if tab.open:
                tab.caption(_("Drawing the interactive charts…"))
        return first_view.upgrade_soon(state.visit)
    for label, tab in zip(TABS[3:-1], inside):
        if tab.open:
            with tab:
                INSIDE[label].render(state)
    for tab, draw in ((lines_tab, head_view_tab), (stats_tab, statistics_tab), (rollout_tab, rollout)):
        if tab.open:
            with tab:
                draw(state)
    if export_tab.open:
        with export_tab:
            downloads(state, grid_img)


def head_view_tab(state: ExplorerState):
    """Lines from each query to each key of the picked layer, one colour per head; a click on a token picks it."""
    L, H, N = state.shape
    layer, picked = state.layer, state.picked
    h1, h2, h3 = st.columns([2, 2, 1])
    heads = h1.multiselect(_("Heads"), range(H), list(range(H)), key="explorer_heads", format_func=head_only,
                           bind=BIND, persist_state=KEEP)
    start = max(0, min(picked - HEAD_VIEW_MAX // 2, N - HEAD_VIEW_MAX)) if N > HEAD_VIEW_MAX else 0
    if N > HEAD_VIEW_MAX:
        start = h2.slider(_("First token shown"), 0, N - HEAD_VIEW_MAX, start, key=f"explorer_start_{picked}",
                          help=_("The head view draws {n} tokens at a time.").format(n=HEAD_VIEW_MAX))
    min_w = h3.number_input(_("Hide lines below"), 0.0, 0.5, 0.02, step=0.01, key="explorer_min_w", bind=BIND,
                            persist_state=KEEP)
    focus = st.toggle(_("Only the picked token's lines"), True, key="explorer_focus", bind=BIND, persist_state=KEEP,
                      help=_("Left: what the picked token attends to. Right: which tokens attend to it."))
    lines = head_view.plot_head_view(state.weights[layer], state.tokens, heads=heads,
                                     picked=picked if focus else None, start=start, stop=start + HEAD_VIEW_MAX,
                                     min_weight=min_w)
    _export.chart(lines, key="explorer_lines", on_select=_pick_token, selection_mode="points",
                  width="stretch", name=(state.name, layer_label(layer), "head_view"),
                  title=_("Head view, {layer}: query → key, opacity = weight").format(layer=layer_label(layer)),
                  caption=state.caption(layer_label(layer)))
    st.caption(_("{layer}: a line from each query (left) to each key (right), opacity = weight, "
                 "colour = head; weights below {min_w:g} are not drawn. Click a token to pick it.").format(
        layer=layer_label(layer), min_w=min_w))


def statistics_tab(state: ExplorerState):
    """What the picked token attends to in each head of the layer, then one statistic of every head, all of them in
    a table, and the rules of the automatic labels."""
    L, H, _N = state.shape
    layer, picked, tokens = state.layer, state.picked, state.tokens
    st.markdown(_("**What `{token}` (token {i}) attends to in {layer}**").format(
        token=tokens[picked].replace("`", chr(39)), i=picked, layer=layer_label(layer)))
    _export.chart(stat_viz.plot_attends_to(state.weights[layer], tokens, picked, heads=range(H)),
                  key="explorer_bars", width="stretch",
                  name=(state.name, layer_label(layer), f"token{picked}", "attends_to"),
                  title=_("What “{token}” (token {i}) attends to").format(token=tokens[picked], i=picked),
                  caption=state.caption(layer_label(layer)))
    which = st.selectbox(_("Statistic"), list(STAT_NAMES), format_func=lambda k: _(STAT_NAMES[k]),
                         key="explorer_stat", bind=BIND, persist_state=KEEP)
    _export.chart(stat_viz.plot_stat_map(state.stats[which], name=_(STAT_NAMES[which]), labels=state.labels),
                  key="explorer_statmap", width="stretch", name=(state.name, which, "by_head"),
                  title=_("{statistic}, every head").format(statistic=_(STAT_NAMES[which])),
                  caption=state.caption())
    table = pd.DataFrame([{_("head"): head_label(lay, h),
                           **{_(STAT_NAMES[k]): state.stats[k][lay, h] for k in STAT_NAMES},
                           _("labels"): ", ".join(_(x) for x in state.labels[lay][h])}
                          for lay in range(L) for h in range(H)])
    st.dataframe(table, hide_index=True, width="stretch")
    st.markdown(_("**Label rules** (on this text):") + "\n"
                + "\n".join(_("- **{label}**: {rule}").format(label=_(k), rule=head_stats.rule(k))
                            for k in head_stats.RULES))
    count = head_stats.pronoun_count(tokens)
    if count < head_stats.COREF_PRONOUNS:
        st.caption(ngettext("No head is labelled coreference on this text: it has {n} pronoun with an earlier word, "
                            "and one text needs {least} before a head's habit shows. The Coreference page measures "
                            "the heads on labelled pronouns.",
                            "No head is labelled coreference on this text: it has {n} pronouns with an earlier "
                            "word, and one text needs {least} before a head's habit shows. The Coreference page "
                            "measures the heads on labelled pronouns.", count).format(
            n=count, least=head_stats.COREF_PRONOUNS))


def rollout(state: ExplorerState):
    """Attention rollout through a chosen layer."""
    L = state.shape[0]
    roll = analysis.rollout(state.weights)
    upto = st.selectbox(_("Rollout through layer"), range(L), index=L - 1, key="explorer_rollout_layer",
                        format_func=layer_label, bind=BIND, persist_state=KEEP)
    _export.chart(grid.plot_zoom(roll[upto], q_labels=state.tokens, k_labels=state.tokens, log=state.log),
                  key="explorer_rollout", width="stretch", name=(state.name, "rollout", layer_label(upto)),
                  title=_("Attention rollout through {layer}").format(layer=layer_label(upto)),
                  caption=state.caption())
    st.caption(_("Attention rollout (Abnar & Zuidema 2020): each layer's head-averaged weights mixed "
                 "half-and-half with the identity (the residual path), rows renormalised, multiplied from "
                 "{first} up. Row i: how much of token i's representation after that layer traces back to "
                 "each input token.").format(first=layer_label(0)))


def downloads(state: ExplorerState, grid_img: GridImage):
    """The grid, the zoomed head and every weight as files, each made when its button is clicked (a callable):
    nothing is rendered or held in memory for a button not pressed."""
    L, H, N = state.shape
    name, text, tokens, weights, log = state.name, state.text, state.tokens, state.weights, state.log
    zoom = zoom_of(state)
    stem = f"{name}_{file_label(state.layer, state.head)}"
    d1, d2, d3 = st.columns(3)
    png, notices = grid_img.png, [str(n) for n in state.run.notices]     # str: in this session's language
    _export.download(_("Grid (PNG)"), lambda: png, (name, "all_heads"), "png", "image/png", where=d1,
                     key="explorer_file_grid", text=text)
    _export.download(_("Zoomed head (PNG)"), lambda: export.heatmap_png(zoom.matrix, log=log), stem, "png",
                     "image/png", where=d1, key="explorer_file_zoom_png", text=text)
    if max(zoom.matrix.shape) <= export.SVG_MAX_TOKENS:
        title = f"{name} {head_label(state.layer, state.head)}"
        _export.download(_("Zoomed head (SVG)"),
                         lambda: export.heatmap_svg(zoom.matrix, q_labels=zoom.labels, k_labels=zoom.labels,
                                                    title=title, log=log),
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
