"""Masks & sparse attention: what each mask lets a token see, how far information travels through k layers,
what a pattern does to a trained model's attention and output, and what dense and sparse attention cost
as the input grows (textbook 12.9: windows, dilation, global tokens). The receptive field is drawn here; the other
tabs sit beside this file: masks_lab (with masks_predict and masks_patterns), masks_live and masks_cost."""
import streamlit as st

from app_pages import _export, _present, _runs, _url
from app_pages.views import masks_cost, masks_lab, masks_live
from app_pages.views.masks_patterns import added, pattern_caption, pattern_name
from i18n import N_, _, ngettext
from model.analysis import reach
from viz import masks as viz
from viz.slide import caption_line

TABS = [N_("Pattern lab"), N_("Receptive field"), N_("Live effect"), N_("Cost")]
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page


def layers(k: int) -> str:
    """1 -> "1 layer", 2 -> "2 layers"."""
    return ngettext("{n:,} layer", "{n:,} layers", k).format(n=k)


def describe(c: reach.Connectivity) -> str:
    if c.everything:
        return _("every token reaches every other after **{layers}**").format(layers=layers(c.layers))
    return _("never connects everything: after **{layers}** it reaches {share} of the pairs and more layers add "
             "nothing").format(layers=layers(c.layers), share=f"{c.reachable:.1%}")


def reach_section(n: int, chosen: dict):
    st.subheader(_("Receptive field: how far information travels through k layers"))
    st.caption(_("Entry [i, j] is dark when token j's input can influence token i's output after k layers: the "
                 "boolean matrix power (mask ∨ I)ᵏ (the residual connection keeps each token's own input)."))
    _url.stale_number("masks_k", 1, 16, _("layers"), 2)
    k = st.slider(_("layers k"), 1, 16, 2, key="masks_k", bind=BIND, persist_state=KEEP)
    max_layers = 32 if n <= 256 else 12
    cols, shares = (_present.main() or st).columns(2), {}
    for col, side in zip(cols, "AB"):
        key, params, causal, m = chosen[side]
        if m is None:
            continue
        cover = _runs.mask_coverage(key, n, tuple(sorted(params.items())), causal, max_layers)
        m, conn, share = cover.mask, cover.connectivity, cover.share
        shares[f"{side}: {pattern_name(key)}"] = share
        with col:
            _export.chart(viz.plot_reach(reach.receptive_field(m, k), added=added(key, params),
                                         title=_("{side} after {layers}").format(side=side, layers=layers(k))),
                          key=f"masks_reach_{side}", name=("reach", side, key, f"N{n}", f"{k}layers"),
                          caption=pattern_caption(n, side, chosen[side]))
            st.markdown(_("**{side}**: {what}").format(side=side, what=describe(conn)))
    if shares:
        _export.chart(viz.plot_coverage(shares, title=_("Share of pairs connected after k layers")), key="masks_cov",
                      name=("reach", "coverage", f"N{n}"),
                      caption=caption_line(f"N = {n}", *(f"{side}: {pattern_name(chosen[side][0])}"
                                                         for side in "AB" if chosen[side][3] is not None)))


def render():
    st.title(_("Masks & sparse attention"))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    st.markdown(_("A mask decides which keys each query may attend: blocked scores become −∞ before the softmax, so "
                  "their weights are exactly 0. Dense attention pays for all N² pairs; windows, dilation and a few "
                  "global tokens keep the cost linear in N while information still spreads across the input layer "
                  "by layer."))
    # the open tab is in the URL; the lab's patterns are drawn on every run (the receptive field reads them), the
    # other tabs only when open (the live model and the cost curves are the slow parts)
    tabs = [_(t) for t in TABS]
    _url.named_anew("masks_tab", tabs)                         # the language changed: the open tab stays open
    _url.stale_link("masks_tab", tabs, _("the tab"), tabs[0])
    lab, reach_tab, live, price = st.tabs(tabs, key="masks_tab", on_change="rerun", bind=BIND)
    with lab:
        n, chosen = masks_lab.lab_section(lab.open)
    if reach_tab.open:
        with reach_tab:
            reach_section(n, chosen)
    if live.open:
        with live:
            masks_live.live_section()
    if price.open:
        with price:
            masks_cost.cost_section()
