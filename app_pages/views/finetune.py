"""Fine-tuning: pre-train once, then fine-tune (textbook 12.6, BERT). A small head on the shipped pre-trained encoder
(general_encoder): a class from [CLS] (four-way with a softmax, and the textbook's one number through a sigmoid), a
tag per token, a span's start and end, and next-sentence prediction (a fine-tuned head here, not a pre-training task).

Teaches, for each head: what it answers on typed input (fully fine-tuned and with the encoder frozen), how both did
on held-out data against baselines, the learning curves, and what fine-tuning changed in attention: the same input
through the pre-trained and the fine-tuned encoder, per head, which heads moved most."""
import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _finetuned, _present, _url
from app_pages.views import finetune_tasks as tasks
from i18n import N_, _
from labels import file_label, head_label
from viz.finetune import plot_attention_pair, plot_head_change, plot_learning_curves
from viz.slide import caption_line

TABS = [N_("Classification"), N_("Tagging"), N_("Question answering"), N_("Next sentence")]
KINDS = ("cls", "tag", "span", "nsp")
SHOWN = {"cls": ("cls", "binary"), "tag": ("tag",), "span": ("span",), "nsp": ("nsp",)}   # each tab's fine-tunings
MODELS = {k: f"finetune_{k}" for k in (*KINDS, "binary")}
# the metric keys of each head: (fully fine-tuned, frozen, what), the target, and the baselines (key -> shown name)
RESULTS = {
    "cls": ([("cls_acc_heldout", "cls_acc_heldout_frozen", N_("accuracy"))],
            N_("accuracy ≥ the better baseline + 0.05"),
            {"cls_baseline_majority": N_("majority class"), "cls_baseline_bow": N_("bag of words"),
             "cls_baseline_bow_bigrams": N_("bag of words and word pairs")}),
    "binary": ([("binary_acc_heldout", "binary_acc_heldout_frozen", N_("accuracy"))],
               N_("accuracy ≥ the better baseline + 0.05"),
               {"binary_baseline_majority": N_("majority class"), "binary_baseline_bow": N_("bag of words")}),
    "tag": ([("tag_acc_heldout", "tag_acc_heldout_frozen", N_("accuracy, every word")),
             ("tag_acc_heldout_entities", "tag_acc_heldout_entities_frozen", N_("accuracy, the nouns"))],
            N_("accuracy ≥ 0.8"), {"tag_baseline_majority": N_("always O"),
                                   "tag_baseline_lookup": N_("each word's training tag"),
                                   "tag_baseline_lookup_entities": N_("each word's training tag, the nouns")}),
    "span": ([("span_exact_match_heldout", "span_exact_match_heldout_frozen", N_("exact match")),
              ("span_f1_heldout", "span_f1_heldout_frozen", N_("token F1"))], N_("exact match ≥ 0.6, F1 ≥ 0.7"), {}),
    "nsp": ([("nsp_acc_heldout", "nsp_acc_heldout_frozen", N_("accuracy"))], N_("accuracy ≥ 0.65"),
            {"nsp_baseline_majority": N_("majority answer"), "nsp_baseline_overlap": N_("word overlap")}),
}
CURVE_TITLES = {"cls": N_("validation accuracy"), "binary": N_("validation accuracy"),
                "tag": N_("validation accuracy, every word"), "span": N_("validation exact match"),
                "nsp": N_("validation accuracy")}


def render():
    st.title(_("Fine-tuning"))
    _present.slot()
    st.caption(_("Pre-train once, fine-tune for each task (BERT, textbook 12.6): the shipped encoder "
                 "`general_encoder`, pre-trained as a masked language model on real text, gets one small linear head "
                 "per task and a few minutes of training on labelled examples. **Fully fine-tuned**: the head and "
                 "every encoder weight are trained (the token embeddings too for the four-way classification, kept "
                 "as pre-trained for the other heads); **frozen**: the head alone, the encoder as pre-trained."))
    tabs = [_(t) for t in TABS]
    _url.named_anew("ft_tab", tabs)
    _url.stale_link("ft_tab", tabs, _("the tab"), tabs[0])
    opened = st.tabs(tabs, key="ft_tab", on_change="rerun", bind=_url.BIND)
    for kind, tab in zip(KINDS, opened):
        if tab.open:
            with tab:
                for i, shown in enumerate(SHOWN[kind]):
                    if i:
                        st.divider()
                    section(shown)


def section(kind: str):
    name = MODELS[kind]
    ft = _finetuned.load_or_say(name)
    if ft is None:
        return
    st.markdown(_(tasks.ABOUT[kind]))
    shown = tasks.SECTIONS[kind](name, ft)
    results(kind, ft.meta)
    if kind == "tag":
        tagging_verdict(ft.meta["metrics"])
    curves(kind, ft.meta)
    if shown is not None:
        attention(kind, name, ft.meta, *shown)


def results(kind: str, meta: dict):
    """Held-out scores of both models beside the baselines, from the shipped metrics."""
    m = meta["metrics"]
    scores, bar, baselines = RESULTS[kind]
    st.subheader(_("Held-out results"))
    rows = []
    for full, frozen, what in scores:
        rows.append({_("measure"): _(what), _("fully fine-tuned"): f"{m[full]:.3f}",
                     _("frozen encoder"): f"{m[frozen]:.3f}"})
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    if baselines:
        st.dataframe(pd.DataFrame({_("baseline"): [_(v) for v in baselines.values()],
                                   _("held-out score"): [f"{m[k]:.3f}" for k in baselines]}), hide_index=True)
    r = meta["recipe"]
    st.caption(_("The target: {bar}. Reproduce with `python -m model.train {name}` ({steps:,} steps of "
                 "{batch} examples for each model), then `python -m model.evaluate --json {name}`.").format(
        bar=_(bar), name=meta["name"], steps=r["steps"], batch=r["batch"]))


def tagging_verdict(m: dict):
    """What the tagger's held-out numbers say, read from its shipped metrics (`python -m model.evaluate`)."""
    gain = m["tag_acc_heldout"] - m["tag_acc_heldout_frozen"]
    lead = (_("On this task full fine-tuning beats the frozen encoder by {points:.1f} points of accuracy")
            if gain > 0 else _("On this task full fine-tuning does not beat the frozen encoder")).format(
        points=100 * gain)
    st.markdown(_("**What the numbers say.** {lead}: on held-out sentences the fully fine-tuned tagger is right for "
                  "{full:.3f} of the words and the head alone on the frozen encoder for {frozen:.3f}; for the nouns, "
                  "{full_n:.3f} against {frozen_n:.3f}. The held-out nouns never appear in a tagged training "
                  "sentence, and both taggers get most of them wrong: what fine-tuning learnt is mostly the training "
                  "nouns themselves. The sentence above uses training nouns only; type a held-out one (“nurse”, "
                  "“cello”, “barrel”) to see it fail.").format(
        lead=lead, full=m["tag_acc_heldout"], frozen=m["tag_acc_heldout_frozen"], full_n=m["tag_acc_heldout_entities"],
        frozen_n=m["tag_acc_heldout_entities_frozen"]))


def curves(kind: str, meta: dict):
    st.subheader(_("Learning curves"))
    c = meta["curves"]
    names = {"full": _("fully fine-tuned"), "frozen": _("frozen encoder")}
    score = {names[v]: ([p[0] for p in c[v]], [p[2] for p in c[v]]) for v in ("full", "frozen")}
    loss = {names[v]: ([p[0] for p in c[v][1:]], [p[1] for p in c[v][1:]]) for v in ("full", "frozen")}
    left, right = st.columns(2)
    _export.chart(plot_learning_curves(score, title=_(CURVE_TITLES[kind]), y_title=_(CURVE_TITLES[kind])),
                  key=f"ft_{kind}_curve", name=(meta["name"], "learning_curve"), where=left,
                  caption=caption_line(meta["name"]))
    top = max(max(v) for _s, v in loss.values())
    loss_name = _("binary cross-entropy (nats)") if kind == "binary" else _("cross-entropy (nats)")
    _export.chart(plot_learning_curves(loss, title=_("training loss"), y_title=loss_name,
                                       y_range=(0.0, top * 1.05)),
                  key=f"ft_{kind}_loss", name=(meta["name"], "training_loss"), where=right,
                  caption=caption_line(meta["name"]))
    st.caption(_("A point every {every} steps: the mean training loss since the last point, and the score on {n} "
                 "training-side examples never trained on. Both runs see the same batches.").format(
        every=meta["recipe"]["eval_every"], n=meta["recipe"]["val_size"]))


def attention(kind: str, name: str, meta: dict, run, labels: list[str]):
    """What fine-tuning changed: per head, held out and on this input; one head before and after."""
    st.subheader(_("What fine-tuning changed in attention"))
    st.markdown(_("The same input through the pre-trained and the fine-tuned encoder. For each head, every query "
                  "token's attention row is compared by its total-variation distance, ½ Σ |before − after| (0: "
                  "unchanged, 1: no key in common), averaged over the tokens."))
    held = np.array(meta["attention_change"])
    top = float(max(held.max(), run.change.max()))
    left, right = st.columns(2)
    _export.chart(plot_head_change(held, title=_("Held-out inputs ({n})").format(n=meta["recipe"]["change_inputs"]),
                                   zmax=top), key=f"ft_{kind}_held", name=(name, "attention_change_heldout"),
                  where=left, caption=caption_line(name))
    _export.chart(plot_head_change(run.change, title=_("This input"), zmax=top), key=f"ft_{kind}_this",
                  name=(name, "attention_change_input"), where=right, caption=caption_line(name))
    L, H = run.change.shape
    heads = [head_label(layer, h) for layer in range(L) for h in range(H)]
    moved = int(np.argmax(run.change))
    key = f"ft_{kind}_head"
    _url.stale_link(key, heads, _("the head"), heads[moved])
    picked = st.selectbox(_("Head"), heads, index=moved, key=key, bind=_url.BIND, persist_state=_url.KEEP,
                          help=_("Opens on the head that moved most on this input."))
    layer, h = divmod(heads.index(picked), H)
    flat = np.argsort(-held, axis=None)[:3]
    most = ", ".join(f"{head_label(*divmod(int(i), H))} ({held.flat[i]:.3f})" for i in flat)
    st.caption(_("Moved most on held-out inputs: {most}. {picked} on this input: {value:.3f}.").format(
        most=most, picked=picked, value=run.change[layer, h]))
    fig = plot_attention_pair(run.before[layer, h], run.after[layer, h], labels,
                              titles=(_("{head} pre-trained").format(head=picked),
                                      _("{head} fine-tuned").format(head=picked)))
    _export.chart(fig, key=f"ft_{kind}_pair", name=(name, file_label(layer, h), "before_after"), main=True,
                  caption=caption_line(name, picked, text=" ".join(labels)))
