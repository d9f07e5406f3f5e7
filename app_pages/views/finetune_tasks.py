"""The fine-tuning page's heads on typed input: what each is, its input boxes (bound to the URL) and its answer,
fully fine-tuned and with the encoder frozen. Each section returns (run, piece labels) for the attention section, or
None where it draws none."""
import pandas as pd
import streamlit as st

from app_pages import _export, _finetuned, _url
from app_pages._markup import md, visible
from i18n import N_, _
from model.analysis.finetune_run import sigmoid, softmax
from model.data import bpe, course_tags
from model.tasks import finetune_inputs as inputs
from viz.finetune import plot_probabilities, plot_span_scores
from viz.slide import caption_line

KEEP = _url.KEEP
MAX_CHARS = 600
ABOUT = {
    "cls": N_("**Classification from [CLS].** The head reads the final hidden state of [CLS] and says what kind "
              "of word stood where the sentence has [MASK]: a noun, a verb, an adjective or an adverb. Trained on "
              "WordNet's example sentences, each with the word it illustrates masked and labelled by the part of "
              "speech of its synset; only the words around the gap, and their order, tell the answer. Held out: "
              "the sentences the pre-training corpus held out too. The textbook's classifier, one number through a "
              "sigmoid, is below."),
    "binary": N_("**As the textbook draws it: one number from [CLS], a sigmoid** (12.6.2). The head is one linear map "
                 "from the final state of [CLS] to a single number z; σ(z) is the probability that the answer is yes "
                 "(y = 1), and training lowers the binary cross-entropy. The question here: was the masked word a "
                 "**verb** (y = 1) or a **noun** (y = 0)? The same WordNet example sentences and split as above, "
                 "only those whose word is a noun or a verb."),
    "tag": N_("**Token tagging.** The head reads every token's final state and gives each word, at its first "
              "piece, a type: a venue, dish, animal, place, object, container, person, or none (O). Trained on "
              "generated course-world sentences; the held-out sentences use only nouns no training sentence holds, "
              "so the type must come from what pre-training read about the word, and from its context."),
    "span": N_("**Span question answering.** [CLS] question [SEP] passage [SEP]: two linear outputs give every "
               "token a start score and an end score, and the answer is the passage span with the highest start + "
               "end (start ≤ end, at most 16 pieces). Trained on generated three-sentence passages with questions "
               "built from their structure; held out by passage (nouns no training passage holds)."),
    "nsp": N_("**Next-sentence prediction**: [CLS] A [SEP] B [SEP], does B follow A in the running text, or come from "
              "another document? BERT learnt this in pre-training, as a second task beside the masked language "
              "model. Here it is not a pre-training task: `general_encoder` was pre-trained on masked words only, "
              "and next-sentence prediction is a head fine-tuned on it, like the other tabs'. Pairs from the English "
              "fortune cookies of the real-text corpus, half of them consecutive; held out by document."),
}
CLASS_NAMES = {"adjective": N_("adjective"), "adverb": N_("adverb"), "noun": N_("noun"), "verb": N_("verb")}
TAG_NAMES = {"O": N_("none (O)"), "VENUE": N_("venue"), "DISH": N_("dish"), "ANIMAL": N_("animal"),
             "PLACE": N_("place"), "OBJECT": N_("object"), "CONTAINER": N_("container"), "PERSON": N_("person")}
BINARY_NAMES = {"noun": N_("noun"), "verb": N_("verb")}
NSP_NAMES = {"NotNext": N_("NotNext: from elsewhere"), "IsNext": N_("IsNext: follows A")}
DEFAULTS = {"ft_cls_text": "sit down and stay [MASK]",
            "ft_bin_text": "the children [MASK] in the park",
            "ft_tag_text": "The soldier put the clock in the locker near the alleyway.",
            "ft_span_question": "Where did the pilot put the toy?",
            "ft_span_passage": "The nurse bought a laptop for forty dollars. The pilot put the toy in the backpack. "
                               "The horse slept by the overpass because it was too tired.",
            "ft_nsp_a": "Also, the Scots are said to have invented golf.",
            "ft_nsp_b": "Then they had to invent Scotch whiskey to take away the pain and frustration."}
MODEL_NAMES = (N_("Fully fine-tuned"), N_("Frozen encoder"))


def text_box(key: str, label: str, area: bool = False) -> str:
    """A bound text box with the page's default, at most MAX_CHARS characters."""
    _url.clipped_link_text(key, MAX_CHARS)
    box = st.text_area if area else st.text_input
    return box(label, DEFAULTS[key], key=key, max_chars=MAX_CHARS, bind=_url.text_bind(key), persist_state=KEEP)


def tokenizer():
    return bpe.load()


def probabilities(name: str, run, labels: dict, title: str):
    """Both models' answers (with their probability) beside a chart of every label's probability."""
    shown = [_(v) for v in labels.values()]
    full, frozen = softmax(run.full), softmax(run.frozen)
    left, right = st.columns([1, 2])
    for where, what, p in ((left, MODEL_NAMES[0], full), (left, MODEL_NAMES[1], frozen)):
        where.metric(_(what), shown[int(p.argmax())])
        where.caption(_("probability {p:.2f}").format(p=p.max()))
    fig = plot_probabilities(shown, {_(MODEL_NAMES[0]): full, _(MODEL_NAMES[1]): frozen}, title=title)
    _export.chart(fig, key=f"{name}_probs", name=(name, "probabilities"), caption=caption_line(name), where=right)


def classify(name: str, ft):
    text = text_box("ft_cls_text", _("A sentence, [MASK] where a word was"), area=True)
    if not text.strip():
        st.info(_("Type a sentence with [MASK] where a word was."))
        return None
    ids, pieces = inputs.single(tokenizer(), text, ft.base.config.max_len, masks=True)
    if bpe.MASK not in ids:
        st.warning(_("The sentence has no [MASK]: the head was trained on sentences with one word replaced by "
                     "[MASK], so its answer here means little."))
    run = _finetuned.run(name, tuple(ids), tuple(pieces))
    probabilities(name, run, {k: CLASS_NAMES[k] for k in ft.labels}, _("What kind of word was masked?"))
    return run, [visible(p) for p in pieces]


def binary(name: str, ft):
    text = text_box("ft_bin_text", _("A sentence, [MASK] where a noun or a verb was"), area=True)
    if not text.strip():
        st.info(_("Type a sentence with [MASK] where a word was."))
        return None
    st.latex(r"z = w \cdot h_{\texttt{[CLS]}} + b, \qquad \Pr(y = 1) = \sigma(z) = \frac{1}{1 + e^{-z}}")
    st.latex(r"L = -\bigl[\, y \log \sigma(z) + (1 - y) \log\bigl(1 - \sigma(z)\bigr) \bigr]")
    ids, pieces = inputs.single(tokenizer(), text, ft.base.config.max_len, masks=True)
    if bpe.MASK not in ids:
        st.warning(_("The sentence has no [MASK]: the head was trained on sentences with one word replaced by "
                     "[MASK], so its answer here means little."))
    run = _finetuned.run(name, tuple(ids), tuple(pieces))
    shown = [_(BINARY_NAMES[k]) for k in ft.labels]
    left, right = st.columns([1, 2])
    rows = {}
    for what, z in ((MODEL_NAMES[0], float(run.full[0])), (MODEL_NAMES[1], float(run.frozen[0]))):
        p = float(sigmoid(z))
        left.metric(_(what), shown[int(p > 0.5)])
        left.caption(_("z = {z:.2f}, σ(z) = {p:.2f}: the probability of “{yes}”").format(z=z, p=p, yes=shown[1]))
        rows[_(what)] = [1 - p, p]
    fig = plot_probabilities(shown, rows, title=_("Noun or verb? σ(z) and 1 − σ(z)"))
    _export.chart(fig, key=f"{name}_probs", name=(name, "probabilities"), caption=caption_line(name), where=right)
    return None


def next_sentence(name: str, ft):
    a = text_box("ft_nsp_a", _("Sentence A"))
    b = text_box("ft_nsp_b", _("Sentence B"))
    if not (a.strip() and b.strip()):
        st.info(_("Type both sentences."))
        return None
    ids, pieces = inputs.pair(tokenizer(), a, b, (ft.base.config.max_len - 3) // 2)
    run = _finetuned.run(name, tuple(ids), tuple(pieces))
    probabilities(name, run, {k: NSP_NAMES[k] for k in ft.labels}, _("Does B follow A?"))
    return run, [visible(p) for p in pieces]


def tag(name: str, ft):
    text = text_box("ft_tag_text", _("A sentence"))
    t = inputs.tagged(tokenizer(), text, ft.base.config.max_len)
    if not t.words:
        st.info(_("Type a sentence with words to tag."))
        return None
    run = _finetuned.run(name, tuple(t.ids), tuple(t.pieces))
    full, frozen = softmax(run.full), softmax(run.frozen)
    names = [_(TAG_NAMES[k]) for k in ft.labels]
    nouns = {n for ns in course_tags.nouns().values() for n in ns}
    seen = [("" if w.lower() not in nouns else _("no, held out") if course_tags.is_heldout_noun(w.lower())
             else _("yes")) for w, _i in t.words]
    st.dataframe(pd.DataFrame({
        _("word"): [w for w, _i in t.words],
        _("noun in training?"): seen,
        _(MODEL_NAMES[0]): [f"{names[int(full[i].argmax())]} ({full[i].max():.2f})" for _w, i in t.words],
        _(MODEL_NAMES[1]): [f"{names[int(frozen[i].argmax())]} ({frozen[i].max():.2f})" for _w, i in t.words]}),
        hide_index=True, height=35 * (min(len(t.words), 20) + 1) + 3)          # a sentence's words without scrolling
    st.caption(_("Each word's type and its probability, read at the word's first piece. “Noun in training?”: whether "
                 "a tagged training sentence held the noun (a quarter of each kind's nouns are held out)."))
    return run, [visible(p) for p in t.pieces]


def answer_span(name: str, ft):
    asked = text_box("ft_span_question", _("Question"))
    passage = text_box("ft_span_passage", _("Passage"), area=True)
    if not (asked.strip() and passage.strip()):
        st.info(_("Type a question and a passage."))
        return None
    q = inputs.question(tokenizer(), asked, passage, ft.base.config.max_len)
    if q.hi == q.lo:
        st.error(_("The question leaves no room for the passage: shorten the question."))
        return None
    if q.hi - q.lo < len(tokenizer().encode(passage).ids):
        st.warning(_("Only the first {n} pieces of the passage are read: the encoder reads {most} pieces in all.")
                   .format(n=q.hi - q.lo, most=ft.base.config.max_len))
    run = _finetuned.run(name, tuple(q.ids), tuple(q.pieces))
    found = {}
    for key, logits in (("full", run.full), ("frozen", run.frozen)):
        found[key] = inputs.answer(q, logits)
    c1, c2 = st.columns(2)
    c1.metric(_(MODEL_NAMES[0]), found["full"][2] or "—")
    c2.metric(_(MODEL_NAMES[1]), found["frozen"][2] or "—")
    s, e, _text = found["full"]
    a, b = inputs.characters(q, s, e)
    st.markdown(md(q.passage[:a]) + "**" + md(q.passage[a:b]) + "**" + md(q.passage[b:]))
    fig = plot_span_scores([visible(p) for p in q.pieces[q.lo:q.hi]], run.full[q.lo:q.hi, 0], run.full[q.lo:q.hi, 1],
                           chosen=(s - q.lo, e - q.lo), title=_("Start and end scores over the passage (fully "
                                                                "fine-tuned; the answer shaded)"))
    _export.chart(fig, key="ft_span_scores", name=(name, "span_scores"), caption=caption_line(name, text=asked))
    return run, [visible(p) for p in q.pieces]


SECTIONS = {"cls": classify, "binary": binary, "tag": tag, "span": answer_span, "nsp": next_sentence}
