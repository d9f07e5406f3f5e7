"""Translation: an encoder-decoder Transformer translating English into Chinese, or Chinese into English. It teaches the
decoder's second attention (cross-attention: queries from the decoder, keys and values from the
encoder output), the alignment it learns where word order differs ("the restaurant near the station"
→ "车站附近的餐厅"), the masked decoder self-attention, and training (teacher forcing: the shifted target
goes in, every position is predicted at once under the causal mask) beside inference (one token at a time).
The direction, the controls and the tabs sit beside this file: translation_direction, translation_controls,
translation_views, translation_training."""
import html

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _present, _resources, _runs, _url
from app_pages._cache_sizes import ONE
from app_pages._markup import md
from app_pages.views import translation_direction, translation_training, translation_views
from app_pages.views.translation_controls import METHODS, controls, too_long
from app_pages.views.translation_direction import EN_ZH, Direction
from i18n import N_, _, joined
from model.data import translation_corpus as corpus
from model.data import translation_corpus_possession as possession
from model.data import translation_corpus_zh_en as corpus_zh_en
from model.data.word_tokenizer import SPECIALS
from model.tasks.translation import MAX_SOURCE_CHARS, SourceError, known_words
from viz.slide import caption_line

DEFAULT_TEXT = EN_ZH.default
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


@st.cache_data(max_entries=ONE)
def example_pairs_zh() -> dict[str, tuple[str, str]]:
    """Chinese -> (reference English, why it is shown, in English) for the tutorial's sentence and the held-out
    examples of translator_zh_en."""
    out = {}
    for p in corpus_zh_en.examples():
        why = (N_("the tutorial's example (§5.1), a training sentence") if p.zh == possession.TUTORIAL[0] else
               N_("held-out template") if p.template in corpus_zh_en.HELDOUT_TEMPLATES else N_("held-out words"))
        out[p.zh] = (p.en, why)
    return out


def examples_of(direction: Direction) -> dict[str, tuple[str, str]]:
    return example_pairs_zh() if direction.chinese_source else example_pairs()


def outside_vocabulary(src_tok, text: str) -> list[str]:
    """The typed words (lower-cased, sorted, once each) that the translator's English vocabulary lacks."""
    enc = src_tok.encode(text)
    return sorted({t for t, u in zip(enc.tokens, enc.unknown) if u})


def vocabulary_section(src_tok, tgt_tok, unknown: list[str], direction: Direction = EN_ZH):
    """Say plainly that the translator reads and writes its own vocabularies, and list them."""
    source, target = known_words(src_tok), [c for c in tgt_tok.vocab if c not in SPECIALS]
    if direction.chinese_source:
        chinese, english = source, target
        lead = _("Unlike every other page, which reads any text through a tokenizer of real text, the translator keeps "
                 "its **own vocabularies**, those of its generated corpus: **{chinese}** Chinese characters in, "
                 "**{english}** English words out. This is the one place in the app where [UNK] remains, by design: a "
                 "character outside the vocabulary would be read as [UNK], a token the translator never saw in "
                 "training, so it names the character instead of translating.")
        label = _("Known characters: the translator's {chinese} Chinese characters and {english} English words")
        lines = [(_("**Chinese (source):** {words}"), chinese), (_("**English (target):** {words}"), english)]
    else:
        english, chinese = source, target
        lead = _("Unlike every other page, which reads any text through the byte-level BPE tokenizer, the "
                 "translator keeps its **own word vocabularies**, those of its generated corpus: **{english}** "
                 "English words in, **{chinese}** Chinese characters out. This is the one place in the app where "
                 "[UNK] remains, by design: a word outside the vocabulary would be read as [UNK], a token the "
                 "translator never saw in training, so it names the word instead of translating.")
        label = _("Known words: the translator's {english} English words and {chinese} Chinese characters")
        lines = [(_("**English (source):** {words}"), english), (_("**Chinese (target):** {words}"), chinese)]
    st.markdown(lead.format(english=len(english), chinese=len(chinese)))
    with st.expander(label.format(english=len(english), chinese=len(chinese)), expanded=bool(unknown)):
        for line, words in lines:
            st.markdown(line.format(words=" ".join(f"`{w}`" for w in words)))
        st.caption(_("Capitals are read as lower case. Special tokens ([BOS], [EOS], …) are not listed."))


def shown_example(en: str) -> str:
    """An example sentence as the picker shows it (and the URL holds it): the English sentence the model reads,
    which the Chinese interface puts in quotes, as the course texts quote English (“where is the book ?”)."""
    return _("{example_sentence}").format(example_sentence=en)


def shown_example_of(direction: Direction, sentence: str) -> str:
    """An example as the picker shows it: an English one as shown_example says, a Chinese one as it is."""
    return sentence if direction.chinese_source else shown_example(sentence)


def use_example(shown: dict[str, str], direction: Direction = EN_ZH):
    """The picked example's sentence into the text box; shown: picker label -> sentence."""
    state = st.session_state
    state[direction.text_key] = shown.get(state[direction.example_key], state[direction.text_key])


TUTORIAL_EN = ("i", "have", "a", "cat")      # the tutorial's §5.1 pair: 我有一只猫 → "I have a cat"


def tutorial_example(src_tok):
    """Say why the tutorial's own example does not run in this direction, from the translator's English vocabulary,
    and where it runs."""
    missing = [w for w in TUTORIAL_EN if w not in src_tok.index]
    if not missing:
        return
    words = sum(not (w.startswith("[") and w.endswith("]")) for w in src_tok.vocab)     # special tokens left out
    st.caption(_("The tutorial's example (§5.1), 我有一只猫 → “I have a cat”, runs the other way: this translator "
                 "reads English into Chinese over its own {n} English words, and {words} are not among them. Pick "
                 "“{other}” above to translate 我有一只猫 and see the decoder's causal mask over “[BOS] i have a "
                 "cat”.").format(n=words, words=joined(f"“{w}”" for w in missing), other=_("Chinese → English")))


def intro(direction: Direction):
    if direction.chinese_source:
        st.markdown(_("Chinese in, English out. The encoder reads the Chinese sentence one character at a time; the "
                      "decoder writes English one word at a time, and its **cross-attention** looks back at the "
                      "Chinese characters. English puts modifiers, place and time *after* what they describe and "
                      "counts without measure words (一只猫 → “a cat”), so the alignment is not a diagonal."))
    else:
        st.markdown(_("English in, Chinese out. The encoder reads the English sentence; the decoder writes Chinese "
                      "one character at a time, and its **cross-attention** looks back at the English words. Chinese "
                      "puts modifiers, place and time *before* what they describe, so the alignment is not a "
                      "diagonal."))


def heldout_line(direction: Direction, m: dict):
    """The model's held-out figures from its JSON, under the translation."""
    if not m:
        return
    if direction.chinese_source:
        st.caption(_("Held-out test: exact match {exact}, BLEU {bleu} (sacreBLEU, on the English side) on {n} "
                     "sentences (`python -m model.evaluate translator_zh_en --json`).").format(
            exact=f"{m.get('exact_match_heldout', 0):.1%}", bleu=f"{m.get('sacrebleu_heldout', 0):.2f}",
            n=m.get("heldout_n", 0)))
        return
    st.caption(_("Held-out test: exact match {exact}, character BLEU-4 {bleu} on {n} sentences "
                 "(`python -m model.evaluate translator --json`).").format(
        exact=f"{m.get('exact_match_heldout', 0):.1%}", bleu=f"{m.get('bleu_heldout', 0):.3f}",
        n=m.get("heldout_n", 0)))


def render():
    st.title(_("Translation: an encoder-decoder at work"))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    direction = translation_direction.picker()
    intro(direction)
    model, meta = _resources.model_or_stop(direction.model)
    src_tok, tgt_tok = translation_direction.tokenizers(direction)
    if not direction.chinese_source:
        tutorial_example(src_tok)
    dev = _resources.device()
    examples = examples_of(direction)
    text = sentence_box(src_tok, tgt_tok, examples, direction)
    config = model.config
    method, width, layer, head = controls(config.n_dec_layers or config.n_layers, config.n_heads)
    try:
        run = _runs.translation_run(direction.model, dev, text, "greedy" if method == "greedy" else "beam", width)
    except SourceError as e:
        st.error(str(e))
        st.stop()

    reference, held_out = examples.get(direction.normalised(text), (None, None))
    outcome(run, method, width, reference, held_out)
    heldout_line(direction, meta.get("metrics", {}))
    draw_tabs(dev, text, run, (layer, head), reference, direction)


def sentence_box(src_tok, tgt_tok, examples: dict, direction: Direction = EN_ZH) -> str:
    """The example picker and the sentence box, the known words above them; stops the page on a word (or a
    character) outside the translator's vocabulary. Returns the sentence."""
    vocabulary = st.container()
    text_key, example_key, default = direction.text_key, direction.example_key, direction.default
    # the address names the example by its sentence; a link with only one of the two opens a matching pair
    shown = {shown_example_of(direction, s): s for s in examples}      # picker label -> sentence
    first = shown_example_of(direction, default)
    _url.gallery_link(example_key, text_key, shown, first)
    _url.stale_link(example_key, list(shown), _("the example"), first)
    too_long(text_key, MAX_SOURCE_CHARS)
    if direction.chinese_source:
        picked = _("Example sentence (the tutorial's first, then held out: never seen in training)")
        box, box_help = _("Chinese sentence"), _("Characters of the translator's own Chinese vocabulary (under Known "
                                                 "characters above); type a sentence and press Enter.")
    else:
        picked = _("Example sentence (all held out: never seen in training)")
        box, box_help = _("English sentence"), _("Words of the translator's own English vocabulary (under Known words "
                                                 "above), separated by spaces; type a sentence and press Enter.")
    why = (_("The tutorial's sentence is a training sentence; each other was held out of training, its words or its "
             "sentence pattern; the line under the translation says which.") if direction.chinese_source else
           _("Each was held out of training, its words or its sentence pattern; the line under the translation says "
             "which."))
    st.selectbox(picked, list(shown), key=example_key, on_change=use_example, args=(shown, direction), bind=BIND,
                 persist_state=KEEP, help=why)
    text = st.text_input(box, default, max_chars=MAX_SOURCE_CHARS, key=text_key, bind=BIND, persist_state=KEEP,
                         help=box_help)
    unknown = outside_vocabulary(src_tok, text)
    with vocabulary:
        vocabulary_section(src_tok, tgt_tok, unknown, direction)
    if unknown:
        unknown_notice(unknown, direction)
        st.stop()
    return text


def unknown_notice(unknown: list[str], direction: Direction):
    """The calm notice for typed words (or characters) outside the vocabulary, and where Chinese is read."""
    words = ", ".join(f"“{md(w)}”" for w in unknown)
    if direction.chinese_source:
        st.info(_("The translator only knows the characters of its generated corpus, and these are not among them: "
                  "{words}. Each would be read as [UNK], a token it never saw in training, so it does not translate "
                  "the sentence; the characters it knows are listed above. It translates sentences such as "
                  "“我有一只猫”, “老师喜欢车站附近的餐厅。” or “书在哪里？”.").format(words=words))
        return
    note = _("The translator only knows the words of its generated corpus, and these are not among them: "
             "{words}. Each would be read as [UNK], a token it never saw in training, so it does not translate "
             "the sentence; the words it knows are listed above. It translates sentences such as “the teacher "
             "likes the restaurant near the station .” or “where is the book ?”.").format(words=words)
    if any(not w.isascii() for w in unknown):
        note += " " + _("To translate Chinese, pick “{other}” above.").format(other=_("Chinese → English"))
    st.info(note)


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


def draw_tabs(dev: str, text: str, run, chosen: tuple[int, int | str], reference: str | None,
              direction: Direction = EN_ZH):
    """The page's tabs on the run; pick: (layer, head or MEAN)."""
    layer, head = chosen
    # lazy tabs: only the open one draws (training vs inference runs the model twice more); the open tab is in the URL
    tab_labels = [_(t) for t in TABS]                   # the URL holds the shown (translated) tab label
    _url.stale_link("tr_tab", tab_labels, _("the tab"), tab_labels[0])
    tabs = st.tabs(tab_labels, key="tr_tab", on_change="rerun", bind=BIND)

    def about(where: str) -> str:
        """The slides' caption: the translator, the layer or head, the sentence and its translation."""
        return caption_line(direction.model, where, text=f"{text} → {run.output}")

    views, name = translation_views, direction.model
    sections = [lambda: views.cross_section(run, layer, head, about, name),
                lambda: views.alignment_section(run, layer, head, about, name),
                lambda: views.self_section(run, layer, "encoder", about, name),
                lambda: views.self_section(run, layer, "decoder", about, name),
                lambda: translation_training.training_vs_inference(dev, text, run, layer, reference, about,
                                                                   direction)]
    for tab, section in zip(tabs, sections):
        if tab.open:
            with tab:
                section()
