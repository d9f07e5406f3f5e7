"""Translation: an encoder-decoder Transformer translating English into Chinese. It teaches the
decoder's second attention (cross-attention: queries from the decoder, keys and values from the
encoder output), the alignment it learns where word order differs ("the restaurant near the station"
→ "车站附近的餐厅"), the masked decoder self-attention, and training (teacher forcing: the shifted target
goes in, every position is predicted at once under the causal mask) beside inference (one token at a time).
The controls and the tabs sit beside this file: translation_controls, translation_views, translation_training."""
import html

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _present, _resources, _runs, _url
from app_pages._cache_sizes import ONE
from app_pages._markup import md
from app_pages.views import translation_training, translation_views
from app_pages.views.translation_controls import METHODS, TRANSLATOR, controls, too_long
from i18n import N_, _, joined
from model.data import translation_corpus as corpus
from model.data.word_tokenizer import SPECIALS
from model.tasks.translation import MAX_SOURCE_CHARS, SourceError, known_words
from viz.slide import caption_line

DEFAULT_TEXT = "the teacher likes the restaurant near the station ."
TABS = [N_("Cross-attention"), N_("Alignment lines"), N_("Encoder self-attention"),
        N_("Decoder masked self-attention"), N_("Training vs inference")]
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page


@st.cache_data(max_entries=ONE)
def example_pairs() -> dict[str, tuple[str, str]]:
    """English -> (reference Chinese, why it is held out, in English: translated where shown) for the default and
    the held-out examples."""
    out = {DEFAULT_TEXT: ("老师喜欢车站附近的餐厅。", N_("held-out words: restaurant near the station"))}
    for p in corpus.examples():
        out[p.en] = (p.zh, N_("held-out template") if p.template in corpus.HELDOUT_TEMPLATES else
                     N_("held-out words"))
    return out


def outside_vocabulary(src_tok, text: str) -> list[str]:
    """The typed words (lower-cased, sorted, once each) that the translator's English vocabulary lacks."""
    enc = src_tok.encode(text)
    return sorted({t for t, u in zip(enc.tokens, enc.unknown) if u})


def vocabulary_section(src_tok, tgt_tok, unknown: list[str]):
    """Say plainly that the translator reads and writes its own word vocabularies, and list them."""
    english, chinese = known_words(src_tok), [c for c in tgt_tok.vocab if c not in SPECIALS]
    st.markdown(_("Unlike every other page, which reads any text through the byte-level BPE tokenizer, the "
                  "translator keeps its **own word vocabularies**, those of its generated corpus: **{english}** "
                  "English words in, **{chinese}** Chinese characters out. This is the one place in the app where "
                  "[UNK] remains, by design: a word outside the vocabulary would be read as [UNK], a token the "
                  "translator never saw in training, so it names the word instead of translating.").format(
        english=len(english), chinese=len(chinese)))
    with st.expander(_("Known words: the translator's {english} English words and {chinese} Chinese characters").format(
            english=len(english), chinese=len(chinese)), expanded=bool(unknown)):
        st.markdown(_("**English (source):** {words}").format(words=" ".join(f"`{w}`" for w in english)))
        st.markdown(_("**Chinese (target):** {words}").format(words=" ".join(f"`{c}`" for c in chinese)))
        st.caption(_("Capitals are read as lower case. Special tokens ([BOS], [EOS], …) are not listed."))


def shown_example(en: str) -> str:
    """An example sentence as the picker shows it (and the URL holds it): the English sentence the model reads,
    which the Chinese interface puts in quotes, as the course texts quote English (“where is the book ?”)."""
    return _("{example_sentence}").format(example_sentence=en)


def use_example(shown: dict[str, str]):
    """The picked example's sentence into the text box; shown: picker label -> English sentence."""
    st.session_state.tr_text = shown.get(st.session_state.tr_example, st.session_state.tr_text)


TUTORIAL_EN = ("i", "have", "a", "cat")      # the tutorial's §5.1 pair: 我有一只猫 → "I have a cat"


def tutorial_example(src_tok):
    """Say why the tutorial's own example does not run here, from the translator's English vocabulary."""
    missing = [w for w in TUTORIAL_EN if w not in src_tok.index]
    if not missing:
        return
    words = sum(not (w.startswith("[") and w.endswith("]")) for w in src_tok.vocab)     # special tokens left out
    st.caption(_("The tutorial's example (§5.1), 我有一只猫 → “I have a cat”, does not run here: this translator reads "
                 "English into Chinese over its own {n} English words, and {words} are not among them. The "
                 "tutorial's causal mask over “<Begin> I have a cat” is drawn on the Step by step page's Causal mask "
                 "tab, over any sentence.").format(n=words, words=joined(f"“{w}”" for w in missing)))


def render():
    st.title(_("Translation: an encoder-decoder at work"))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    st.markdown(_("English in, Chinese out. The encoder reads the English sentence; the decoder writes Chinese one "
                  "character at a time, and its **cross-attention** looks back at the English words. Chinese puts "
                  "modifiers, place and time *before* what they describe, so the alignment is not a diagonal."))
    model, meta = _resources.model_or_stop(_resources.TRANSLATOR)
    src_tok, tgt_tok = _resources.translator_tokenizers()
    tutorial_example(src_tok)
    dev = _resources.device()
    examples = example_pairs()
    text = sentence_box(src_tok, tgt_tok, examples)
    config = model.config
    method, width, layer, head = controls(config.n_dec_layers or config.n_layers, config.n_heads)
    try:
        run = _runs.translation_run(_resources.TRANSLATOR, dev, text, "greedy" if method == "greedy" else "beam", width)
    except SourceError as e:
        st.error(str(e))
        st.stop()

    reference, held_out = examples.get(" ".join(text.lower().split()), (None, None))
    outcome(run, method, width, reference, held_out)
    m = meta.get("metrics", {})
    if m:
        st.caption(_("Held-out test: exact match {exact}, character BLEU-4 {bleu} on {n} sentences "
                     "(`python -m model.evaluate translator --json`).").format(
            exact=f"{m.get('exact_match_heldout', 0):.1%}", bleu=f"{m.get('bleu_heldout', 0):.3f}",
            n=m.get("heldout_n", 0)))
    draw_tabs(dev, text, run, (layer, head), reference)


def sentence_box(src_tok, tgt_tok, examples: dict) -> str:
    """The example picker and the sentence box, the known words above them; stops the page on a word outside the
    translator's vocabulary. Returns the English sentence."""
    vocabulary = st.container()
    # the address names the example by its English sentence; a link with only one of the two opens a matching pair
    shown = {shown_example(en): en for en in examples}      # picker label -> sentence
    _url.gallery_link("tr_example", "tr_text", shown, shown_example(DEFAULT_TEXT))
    _url.stale_link("tr_example", list(shown), _("the example"), shown_example(DEFAULT_TEXT))
    too_long("tr_text", MAX_SOURCE_CHARS)
    st.selectbox(_("Example sentence (all held out: never seen in training)"), list(shown), key="tr_example",
                 on_change=use_example, args=(shown,), bind=BIND, persist_state=KEEP,
                 help=_("Each was held out of training, its words or its sentence pattern; the line under the "
                        "translation says which."))
    text = st.text_input(_("English sentence"), DEFAULT_TEXT, max_chars=MAX_SOURCE_CHARS, key="tr_text", bind=BIND,
                         persist_state=KEEP,
                         help=_("Words of the translator's own English vocabulary (under Known words above), "
                                "separated by spaces; type a sentence and press Enter."))
    unknown = outside_vocabulary(src_tok, text)
    with vocabulary:
        vocabulary_section(src_tok, tgt_tok, unknown)
    if unknown:
        st.info(_("The translator only knows the words of its generated corpus, and these are not among them: "
                   "{words}. Each would be read as [UNK], a token it never saw in training, so it does not translate "
                   "the sentence; the words it knows are listed above. It translates sentences such as “the teacher "
                   "likes the restaurant near the station .” or “where is the book ?”.").format(
            words=", ".join(f"“{md(w)}”" for w in unknown)))
        st.stop()
    return text


def outcome(run, method: str, width: int, reference: str | None, held_out: str | None):
    """The translation as a heading, how it was decoded and its score against the reference, and the beam's
    hypotheses."""
    st.markdown(f"## {html.escape(run.output)}")
    score = run.score
    # a confident translation has a log-probability like -3e-06: four decimals would print "-0.0000"
    decoding = _(METHODS[method]) + (_(" (width {width})").format(width=width) if method != "greedy" else "")
    line = _("{decoding} · log-probability {score} (probability {p})").format(
        decoding=decoding, score=f"{score:.4g}", p=f"{np.exp(score):.4f}")
    if reference:
        line += _(" · {held_out}, reference {reference}").format(held_out=_(held_out),
                                                                 reference=html.escape(reference))
        line += _(" ✓ exact match") if reference == run.output else _(" ✗ differs")
    st.caption(line)
    if run.beams:
        with st.expander(_("All {n} hypotheses the beam kept, best first").format(n=len(run.beams))):
            cols = [_("translation"), _("log-probability"), _("log-probability per token (ranks them)"),
                    _("ended with [EOS]")]
            rows = [dict(zip(cols, (t, sc, sc / (len(t) + 1), f))) for t, sc, f in run.beams]
            st.dataframe(pd.DataFrame(rows), hide_index=True)


def draw_tabs(dev: str, text: str, run, chosen: tuple[int, int | str], reference: str | None):
    """The page's tabs on the run; pick: (layer, head or MEAN)."""
    layer, head = chosen
    # lazy tabs: only the open one draws (training vs inference runs the model twice more); the open tab is in the URL
    tab_labels = [_(t) for t in TABS]                   # the URL holds the shown (translated) tab label
    _url.stale_link("tr_tab", tab_labels, _("the tab"), tab_labels[0])
    tabs = st.tabs(tab_labels, key="tr_tab", on_change="rerun", bind=BIND)

    def about(where: str) -> str:
        """The slides' caption: the translator, the layer or head, the sentence and its translation."""
        return caption_line(TRANSLATOR, where, text=f"{text} → {run.output}")

    views = translation_views
    sections = [lambda: views.cross_section(run, layer, head, about),
                lambda: views.alignment_section(run, layer, head, about),
                lambda: views.self_section(run, layer, "encoder", about),
                lambda: views.self_section(run, layer, "decoder", about),
                lambda: translation_training.training_vs_inference(dev, text, run, layer, reference, about)]
    for tab, section in zip(tabs, sections):
        if tab.open:
            with tab:
                section()
