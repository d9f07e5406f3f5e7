"""The masks page's pattern lab: two patterns side by side, each drawn with its density, and where they differ."""
import streamlit as st

from app_pages import _export, _present, _url
from app_pages.views.masks_patterns import (
    LAB_WIDTH,
    added,
    built,
    in_frame,
    pattern_caption,
    pattern_controls,
    pattern_name,
    shape_note,
)
from app_pages.views.masks_predict import predict_section
from i18n import _
from model.analysis import reach
from viz import masks as viz

MAX_DRAW_N = 512
BIND, KEEP = _url.BIND, _url.KEEP


def lab_section(shown: bool = True):
    """The pattern lab (drawn on every run: the receptive field reads its patterns); shown: its tab is open."""
    st.subheader(_("Pattern lab"))
    _url.stale_number("masks_n", 4, MAX_DRAW_N, _("sequence length"), 32)
    n = int(st.number_input(_("Sequence length N"), 4, MAX_DRAW_N, 32, 4, key="masks_n", bind=BIND,
                            persist_state=KEEP,
                            help=_("Drawn up to N = {most}; the cost section goes to 16k.").format(most=MAX_DRAW_N)))
    predicted = predict_section(n)
    left, right = st.columns(2)
    chosen = {}
    for side, col, default in (("A", left, "window"), ("B", right, "extra_global")):
        with col, st.container(border=True):
            st.markdown(_("**Pattern {side}**").format(side=side))
            key, params, causal = pattern_controls(f"masks_{side}", n, default, dict(width=LAB_WIDTH))
            chosen[side] = (key, params, causal, built(key, n, params, causal))
    if not predicted:                       # a mask drawn now would give the prediction's answer away
        st.caption(_("Patterns A and B are drawn once you have predicted."))
        return n, chosen
    cols = ((_present.main() if shown else None) or st).columns(2)      # presenting: the two masks first
    for col, side in zip(cols, "AB"):
        if chosen[side][3] is not None:
            with col:
                draw_mask(n, side, chosen[side])
    difference(n, chosen)
    return n, chosen


def draw_mask(n: int, side: str, pattern: tuple):
    """One side's mask, what its global tokens do to the matrix, and its density; pattern: (key, params, causal,
    mask (N', N'))."""
    key, params, causal, m = pattern
    name = _("{pattern} (causal)").format(pattern=pattern_name(key)) if causal else pattern_name(key)
    _export.chart(viz.plot_mask(m, title=f"{side}: {name}", added=added(key, params)),
                  key=f"masks_plot_{side}",
                  name=("mask", side, key, f"N{n}") + (("causal",) if causal else ()),
                  caption=pattern_caption(n, side, pattern))
    if note := shape_note(key, n, params):
        st.caption(note)
    st.metric(_("density of {side} (allowed ÷ all pairs)").format(side=side), f"{reach.density(m):.2%}",
              help=_("{allowed:,} of {pairs:,} pairs").format(allowed=int(m.sum()), pairs=m.size))


def difference(n: int, chosen: dict):
    """Where masks A and B differ, token by token (their added tokens lined up), with the pairs counted."""
    a, b = chosen["A"][3], chosen["B"][3]
    if a is not None and b is not None:
        ga, gb = (added(chosen[side][0], chosen[side][1]) for side in "AB")
        most = max(ga, gb)
        a, b = in_frame(a, ga, most), in_frame(b, gb, most)             # the same tokens in the same rows
        left, right = st.columns(2)
        with left:
            _export.chart(viz.plot_mask_difference(a, b, title=_("A vs B"), added=most), key="masks_plot_diff",
                          name=("mask", chosen["A"][0], "vs", chosen["B"][0], f"N{n}"),
                          caption=pattern_caption(n, "A", chosen["A"]) + " · " + pattern_caption(n, "B", chosen["B"]))
            if ga != gb:
                st.caption(_("The added tokens (G…) exist in one mask only: their pairs count as only in that one."))
        with right:
            st.metric(_("pairs that differ"), f"{int((a != b).sum()):,}")
            st.metric(_("only in A"), f"{int((a & ~b).sum()):,}")
            st.metric(_("only in B"), f"{int((b & ~a).sum()):,}")
