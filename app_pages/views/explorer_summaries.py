"""The explorer's "Summaries" tab: several query tokens' attention combined, and the heads and layers summarised
by their mean, their maximum or rollout, each with what it means and what it hides. Teaches that every summary
of many maps throws something away."""
import streamlit as st

from app_pages import _export, _url
from app_pages.views.explorer_state import ExplorerState
from i18n import N_, _, ngettext
from labels import head_label, layer_label
from model.analysis.summaries import combined_rows, summarise
from viz import grid
from viz.heatmap import plot_heatmap

BIND, KEEP = _url.BIND, _url.KEEP
SUMMARIES = {"mean": N_("mean over the heads of the layer"), "max": N_("max over the heads of the layer"),
             "all_mean": N_("mean over every layer and head"), "rollout": N_("rollout through the layer")}
SAYS = {"mean": N_("**Means:** where the layer as a whole looks, each head counted alike. **Hides:** a head that "
                   "looks somewhere alone is diluted by the others, and heads that cancel are not told apart."),
        "max": N_("**Means:** for each pair, the strongest pull any one head of the layer has. **Hides:** which head "
                  "it is, and how many agree; rows no longer sum to 1, so it is not a distribution."),
        "all_mean": N_("**Means:** the average pattern of the whole model. **Hides:** the order of layers, what each "
                       "head does, and that later layers attend over mixed vectors, not the input tokens."),
        "rollout": N_("**Means:** how much of a token's vector after the layer traces back to each input token, "
                      "following attention and the residual path through every layer below (Abnar & Zuidema 2020). "
                      "**Hides:** it assumes the residual is always one half and ignores the values' norms and the "
                      "feed-forward layers (compare the Value norms tab).")}


def render(state: ExplorerState):
    L, H, N = state.shape
    words = _url.word_labels(state.tokens)
    _url.stale_picks("explorer_sum_queries", words, _("the word"))
    kept = st.session_state.get("explorer_sum_queries")
    if kept is not None and any(not isinstance(i, int) or i >= N for i in kept):
        del st.session_state["explorer_sum_queries"]
    queries = st.multiselect(_("Query tokens"), range(N), [state.picked], key="explorer_sum_queries",
                             format_func=words.__getitem__, bind=BIND, persist_state=KEEP,
                             help=_("Their rows are averaged: the attention of the group as one query."))
    if queries:
        rows = combined_rows(state.weights, queries)                                   # (L, H, N)
        names = [head_label(lay, h) for lay in range(L) for h in range(H)]
        picked = ", ".join(words[i] for i in queries)
        _export.chart(plot_heatmap(rows.reshape(L * H, N), x_labels=state.tokens, y_labels=names, y_names=True,
                                   x_title=_("key"), y_title=_("head"), value_name=_("mean weight"),
                                   title=ngettext("Combined attention of {n} query token",
                                                  "Combined attention of {n} query tokens",
                                                  len(queries)).format(n=len(queries))),
                      key="explorer_sum_rows", width="stretch", name=(state.name, "combined_rows"),
                      caption=state.caption(picked))
        st.caption(_("Every head's rows of {tokens} averaged: each row still sums to 1. **Hides:** a query that "
                     "looks elsewhere than the others pulls the mean toward the middle.").format(tokens=picked))
    else:
        st.info(_("Pick one or more query tokens."))
    c1, c2 = st.columns([2, 1])
    shown = {k: _(v) for k, v in SUMMARIES.items()}
    _url.as_option("explorer_summary", list(SUMMARIES), list(shown.values()))
    how = c1.selectbox(_("Summary"), list(SUMMARIES), key="explorer_summary", format_func=shown.get, bind=BIND,
                       persist_state=KEEP)
    layer = c2.selectbox(_("Layer"), range(L), index=state.layer, key="explorer_sum_layer", format_func=layer_label,
                         bind=BIND, persist_state=KEEP, disabled=how == "all_mean")
    matrix = summarise(state.weights, how, layer)
    where = _("every layer") if how == "all_mean" else layer_label(layer)
    title = _("{summary}: {where}").format(summary=shown[how], where=where)
    _export.chart(grid.plot_zoom(matrix, q_labels=state.tokens, k_labels=state.tokens, log=state.log, title=title),
                  key="explorer_sum_map", width="stretch", name=(state.name, "summary", how, layer_label(layer)),
                  caption=state.caption(where))
    st.markdown(_(SAYS[how]))
