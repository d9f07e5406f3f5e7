"""The coreference page's real-text views: every model with a coreference head on the project's own pronoun set
(model/data/coref_realtext.jsonl), its heads ranked on the test split, and the models side by side per cue with
Wilson intervals and the first-noun and nearest-noun baselines, saying which resolves what."""
import pandas as pd
import streamlit as st

from app_pages import _export
from app_pages._runs import RealTextFigures, realtext_figures
from i18n import N_, _, joined
from labels import head_label
from model.tasks import coref_realtext
from viz.coref import plot_head_ranking
from viz.slide import caption_line

CUE_NAMES = {"gender": N_("gender (he/she)"), "number": N_("number (it/they)"), "structure": N_("structure"),
             "winograd": N_("Winograd pairs (world knowledge)"), "cued": N_("gender + number + structure"),
             "all": N_("all test sentences")}
CUE_NAMES_CHINESE = {**CUE_NAMES, "gender": N_("gender (他/她)"), "number": N_("number (它/他们)")}


def ranking_view(fig: RealTextFigures, name: str):
    """Every head of a model on the real-text pronoun set's test split, with the baselines."""
    layer, h = fig.head
    every = fig.cues["all"]
    st.markdown(_("Each head of **{model}** on the **{n}** test sentences of its real-text pronoun set: a head is "
                  "right when, among the sentence's candidate nouns, it gives the antecedent the largest weight at the "
                  "pronoun. The coreference head **{head}** was chosen on the dev split and is right on **{acc}**; "
                  "pointing at the first noun is right {first}, at the nearest noun {nearest}.").format(
        model=name, n=every["n"], head=head_label(layer, h), acc=f"{every['model'] / every['n']:.1%}",
        first=f"{every['first'] / every['n']:.0%}", nearest=f"{every['nearest'] / every['n']:.0%}"))
    _export.chart(plot_head_ranking(fig.test_acc, chosen=fig.head,
                                    baselines={_("first noun"): every["first"] / every["n"],
                                               _("nearest noun"): every["nearest"] / every["n"]}),
                  key="coref_ranking", name=(name, "head_accuracy_realtext"), main=True,
                  title=_("Each head's accuracy on the real-text test sentences"),
                  caption=caption_line(name, _("{n} real-text test sentences").format(n=every["n"]),
                                       _("{head}: the coreference head").format(head=head_label(layer, h))))


def _share(k: int, n: int) -> str:
    lo, hi = coref_realtext.wilson(k, n)
    return _("{acc} ({lo}–{hi})").format(acc=f"{k / n:.0%}", lo=f"{lo:.0%}", hi=f"{hi:.0%}")


def resolves(cue: dict) -> bool:
    """Whether a model resolves one cue's sentences: the 95% interval of its accuracy lies above both
    baselines."""
    lo, _hi = coref_realtext.wilson(cue["model"], cue["n"])
    return lo > max(cue["first"], cue["nearest"]) / cue["n"]


def render(device_name: str, names: list[str], chinese: bool = False):
    """Every model with a coreference head, side by side, on the real-text pronoun set's test split (chinese: the
    Chinese set, for the Chinese models)."""
    if chinese:
        st.markdown(_("Ordinary modern-Chinese sentences written for this project "
                      "(`model/data/coref_realtext_zh.jsonl`, data card in `docs/coref-realtext-zh-card.md`), in "
                      "the words jieba cuts them into, each labelled with the cue a reader uses: gender (他/她), "
                      "number (它/他们), sentence structure, or world knowledge (Winograd-style pairs). The "
                      "coreference head was chosen on the dev split; these are its test figures, with 95% "
                      "intervals (Wilson). A head's answer is the candidate word it weights most at the pronoun. "
                      "Recompute with `python -m model.evaluate --json {names}`.").format(names=" ".join(names)))
    else:
        st.markdown(_("Ordinary English sentences written for this project (`model/data/coref_realtext.jsonl`, data "
                      "card in `docs/coref-realtext-card.md`), each labelled with the cue a reader uses: gender, "
                      "number, sentence structure, or world knowledge (Winograd-style pairs). Each model's "
                      "coreference head was chosen on the dev split; these are its test figures, with 95% intervals "
                      "(Wilson). A head's answer is the candidate noun it weights most at the pronoun. Recompute "
                      "with `python -m model.evaluate --json {names}`.").format(names=" ".join(names)))
    cue_names = CUE_NAMES_CHINESE if chinese else CUE_NAMES
    figs = {name: realtext_figures(name, device_name) for name in names}
    first = next(iter(figs.values())).cues                   # the baselines are the same for every model
    rows = []
    for cue, c in first.items():
        row = {_("cue"): _(cue_names[cue]), _("sentences"): c["n"], _("first noun"): f"{c['first'] / c['n']:.0%}",
               _("nearest noun"): f"{c['nearest'] / c['n']:.0%}"}
        for name, fig in figs.items():
            mine = fig.cues[cue]
            mark = " ✓" if resolves(mine) else ""
            row[_("{model}, head {head}").format(model=name, head=head_label(*fig.head))] = (
                _share(mine["model"], mine["n"]) + mark)
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(_("✓: the 95% interval lies above both baselines."))
    for name, fig in figs.items():
        good = [_(cue_names[c]) for c in coref_realtext.CUES if resolves(fig.cues[c])]
        st.markdown(_("**{model}** resolves: {cues}.").format(model=name, cues=joined(good)) if good else
                    _("**{model}** resolves no kind of these sentences better than pointing at a noun by its "
                      "place.").format(model=name))
