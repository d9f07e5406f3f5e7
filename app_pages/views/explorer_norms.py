"""The explorer's "Value norms" tab: attention weighted by what it moves (Kobayashi et al. 2020). Beside the
zoomed head's raw weights, α_ij·‖f(x_j)‖ with f(x_j) the value vector after the output projection, as shares of
each row; the norms themselves; each layer's mixing share (attention against the residual); and rollout from the
raw weights and from the norms. Teaches that a large weight on a vector of small norm moves little."""
import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _head_runs, _url
from app_pages.views.explorer_state import ExplorerState
from i18n import _
from labels import file_label, head_label, layer_label
from model.analysis import value_norms as vn
from model.tasks.word_attention import word_attention
from viz import value_norms as viz
from viz.stats import plot_stat_map

BIND, KEEP = _url.BIND, _url.KEEP


def _words(state: ExplorerState, m: np.ndarray) -> np.ndarray:
    """A (..., n, n) piece matrix whose rows are shares -> as shown (words: summed over key pieces, averaged over
    query pieces)."""
    return word_attention(m, state.run.words, dtype=np.float64) if state.words else m


def _disagreements(state: ExplorerState, raw: np.ndarray, norm: np.ndarray):
    rows = vn.disagreements(raw, norm)
    tokens = _url.word_labels(state.tokens)
    if not rows:
        st.caption(_("In this head every query's largest raw weight and largest weighted share fall on the same "
                     "token."))
        return
    st.markdown(_("**Where they disagree** (queries whose largest raw weight and largest weighted share fall on "
                  "different tokens, the largest gap first):"))
    table = [{_("query"): tokens[r["query"]], _("raw weights pick"): tokens[r["raw_key"]], _("raw weight"): r["raw"],
              _("its weighted share"): r["raw_key_share"], _("norms pick"): tokens[r["norm_key"]],
              _("weighted share"): r["norm"]} for r in rows]
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="%.3f")
                                for c in (_("raw weight"), _("its weighted share"), _("weighted share"))})


def render(state: ExplorerState):
    L, H, N = state.shape
    layer, head = state.layer, state.head
    norms = _head_runs.value_norms(state.name, state.device, state.text)
    run = _head_runs.qkv_run(state.name, state.device, state.text)
    name = head_label(layer, head)
    st.markdown(_("A head adds α_ij · f(x_j) to token i, where f(x_j) is key j's value vector after the head's part "
                  "of the output projection W_O. Weighting each α_ij by ‖f(x_j)‖ (as a share of its row) says what "
                  "each key really sends (Kobayashi et al. 2020)."))
    st.caption(_("Computed on the model's pieces{words}.").format(
        words=_(", then summed into whole words as the page shows them") if state.words else ""))
    shares = _words(state, vn.row_normalised(vn.weighted_norms(run.weights, norms.norms)))    # (L, H, N, N)
    raw, norm = state.weights[layer, head].astype(np.float64), shares[layer, head]
    differ = vn.differ(state.weights.astype(np.float64), shares).mean(-1)                        # (L, H)
    _export.chart(plot_stat_map(differ, name=_("queries whose top key changes"), zmin=0, zmax=1),
                  key="explorer_norms_heads", width="stretch", name=(state.name, "value_norm_disagreement"),
                  title=_("Where raw weights and norms disagree, every head"), caption=state.caption())
    st.caption(_("Each cell: the share of a head's queries whose largest raw weight and largest weighted share "
                 "fall on different tokens (by more than 0.01). {head}, below, disagrees on {share:.0%}.").format(
        head=name, share=differ[layer, head]))
    st.subheader(_("{head}: weights and weights × value norms").format(head=name))
    _export.chart(viz.plot_side_by_side(raw, norm, labels=state.tokens,
                                        titles=(_("raw weights α"), _("α · ‖f(x)‖, row shares"))),
                  key="explorer_norms_maps", width="stretch", name=(state.name, file_label(layer, head), "value_norms"),
                  title=_("{head}: weights and weights × value norms").format(head=name), caption=state.caption(name))
    _disagreements(state, raw, norm)
    key_norms = norms.norms[layer, head]
    if state.words:                                   # a word's vector: its pieces' norms, weighted as attention is
        key_norms = np.array([key_norms[list(w)].sum() for w in state.run.words])
    _export.chart(viz.plot_norms(key_norms, state.tokens), key="explorer_norms_bars", width="stretch",
                  name=(state.name, file_label(layer, head), "value_norm_by_key"),
                  title=_("{head}: ‖f(x_j)‖ of every key").format(head=name), caption=state.caption(name))
    if state.words:
        st.caption(_("For a word of several pieces the bar is the sum of its pieces' norms."))

    st.subheader(_("Attention against the residual"))
    _export.chart(viz.plot_mixing(norms.share), key="explorer_norms_mixing", width="stretch",
                  name=(state.name, "mixing_share"), title=_("Mixing share of every layer"), caption=state.caption())
    st.caption(_("For token i of a layer: Σ_j ‖Σ_h α_hij f_h(x_j)‖ ÷ (that + ‖x_i‖), the share of what reaches it "
                 "through attention rather than along the residual connection (Kobayashi et al. 2021); the bar is "
                 "the layer's mean, the whiskers its smallest and largest token. Raw rollout assumes one half in "
                 "every layer."))
    upto = st.selectbox(_("Rollout through layer"), range(L), index=L - 1, key="explorer_norms_layer",
                        format_func=layer_label, bind=BIND, persist_state=KEEP)
    roll_raw, roll_norm = _words(state, norms.rollout_raw[upto]), _words(state, norms.rollout_norm[upto])
    _export.chart(viz.plot_side_by_side(roll_raw, roll_norm, labels=state.tokens,
                                        titles=(_("rollout of raw weights"), _("rollout of norms"))),
                  key="explorer_norms_rollout", width="stretch", name=(state.name, "rollout_norms", layer_label(upto)),
                  title=_("Rollout through {layer}: raw weights and norms").format(layer=layer_label(upto)),
                  caption=state.caption())
    moved = int((roll_raw.argmax(-1) != roll_norm.argmax(-1)).sum())
    st.caption(_("Raw rollout mixes each layer's head-averaged weights half-and-half with the identity; rollout of "
                 "norms puts ‖x_i‖ on the diagonal and ‖Σ_h α_hij f_h(x_j)‖ off it, rows renormalised. Their largest "
                 "source differs for {differ} of {n} tokens.").format(differ=moved, n=len(state.tokens)))
