"""The coreference page's "Head ablation" tab: remove each head in turn and measure, on held-out sentences, the
model's own answer and the coreference head's pointing. Teaches that a head whose pattern looks like the answer
need not be the head the answer rests on: only removing it says."""
import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _head_runs, _url
from app_pages._resources import COREF_MODEL
from i18n import N_, _
from labels import head_label
from viz.ablation import plot_head_effects
from viz.slide import caption_line

BIND, KEEP = _url.BIND, _url.KEEP
MODES = {"zero": N_("zero (output set to 0)"), "mean": N_("mean (average output on these sentences)")}
MATTERS = 0.02                   # an accuracy drop at least this large counts as the head mattering


def _conclusion(fx) -> str:
    """What the numbers say about the coreference head, in one paragraph (computed, never fixed)."""
    chosen = head_label(*fx.head)
    drop = fx.answer_base - fx.answer_without[fx.head]
    drops = fx.drops()
    order = [tuple(int(x) for x in np.unravel_index(k, drops.shape)) for k in np.argsort(-drops.ravel(), kind="stable")]
    sharing = [c for c in order if c != fx.head and drops[c] >= MATTERS]
    heads = ", ".join(_("{head} (−{drop:.1%})").format(head=head_label(*c), drop=drops[c]) for c in sharing)
    if drop >= 0.2:
        said = _("Removing the coreference head {head} costs the answer {drop:.1%}: the answer rests on it.").format(
            head=chosen, drop=drop)
    else:
        said = _("Removing the coreference head {head} changes the answer by {drop:+.1%}: {head} points at the "
                 "right noun, but the answer does not rest on it.").format(head=chosen, drop=0.0 - drop)
    if sharing:
        said += " " + _("The heads whose removal costs the answer at least {least:.0%}: {heads}.").format(
            least=MATTERS, heads=heads)
        top = sharing[0]
        if fx.pointing_base - fx.pointing_without[top] >= MATTERS:
            said += " " + _("Removing {other} also drops {head}'s pointing from {before:.1%} to {after:.1%}: the "
                            "coreference head reads what {other} set up.").format(
                other=head_label(*top), head=chosen, before=fx.pointing_base, after=fx.pointing_without[top])
    else:
        said += " " + _("No single head's removal costs the answer {least:.0%} or more: the work is shared.").format(
            least=MATTERS)
    return said


def render(device: str):
    shown = {k: _(v) for k, v in MODES.items()}
    _url.as_option("coref_ablate_mode", list(MODES), list(shown.values()))
    mode = st.radio(_("How to remove"), list(MODES), key="coref_ablate_mode", format_func=shown.get, bind=BIND,
                    persist_state=KEEP, horizontal=True,
                    help=_("Zero: the head sends nothing. Mean: it sends its average output over these sentences' "
                           "tokens, so only what depends on the sentence is removed."))
    fx = _head_runs.coref_head_effects(COREF_MODEL, device, mode)
    chosen = head_label(*fx.head)
    st.markdown(_("On **{n}** held-out sentences (noun pairs never seen in training), one head removed at a time. "
                  "**The answer** is the model's own: its pronoun cloze head names one of the sentence's two nouns "
                  "(right on **{base:.1%}** with every head in place). **The pointing** is the coreference head "
                  "{head}'s largest weight at the pronoun (right on **{pbase:.1%}**); removing a head cannot change "
                  "its own weights, only those of later layers.").format(
        n=fx.n, base=fx.answer_base, head=chosen, pbase=fx.pointing_base))
    st.info(_conclusion(fx))
    c1, c2 = st.columns(2)
    caption = caption_line(COREF_MODEL, _("{n} held-out sentences").format(n=fx.n), _("{mode} ablation").format(
        mode=shown[mode]))
    with c1:
        _export.chart(plot_head_effects(fx.answer_without, fx.answer_base, chosen=fx.head, name=_("the answer"),
                                        title=_("The answer with each head removed")),
                      key="coref_ablation_answer", name=(COREF_MODEL, "ablation", mode, "answer"), caption=caption)
    with c2:
        _export.chart(plot_head_effects(fx.pointing_without, fx.pointing_base, chosen=fx.head,
                                        name=_("the pointing"),
                                        title=_("{head}'s pointing with each head removed").format(head=chosen)),
                      key="coref_ablation_pointing", name=(COREF_MODEL, "ablation", mode, "pointing"),
                      caption=caption)
    st.caption(_("Each cell: the accuracy without that head, and its change; red: it fell. The outlined cell is the "
                 "coreference head. Recompute with `python -m model.evaluate --json coref_encoder` (zero ablation: "
                 "coref_acc_heldout_pairs_without_coref_head, coref_acc_max_drop_other_head)."))
    L, H = fx.answer_without.shape
    table = [{_("head removed"): head_label(lay, h), _("answer"): fx.answer_without[lay, h],
              _("answer change"): fx.answer_without[lay, h] - fx.answer_base + 0.0,
              _("pointing"): fx.pointing_without[lay, h],
              _("pointing change"): fx.pointing_without[lay, h] - fx.pointing_base + 0.0}
             for lay in range(L) for h in range(H)]
    formats = {_("answer"): "%.3f", _("answer change"): "%+.3f", _("pointing"): "%.3f", _("pointing change"): "%+.3f"}
    st.dataframe(pd.DataFrame(table), hide_index=True, width="stretch", height=35 * (len(table) + 1) + 3,
                 column_config={c: st.column_config.NumberColumn(format=f) for c, f in formats.items()})
    st.caption(_("Remove any set of heads on your own text in the explorer's Ablation tab."))
