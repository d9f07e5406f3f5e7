"""Translation: an encoder-decoder Transformer translating English into Chinese. It teaches the
decoder's second attention (cross-attention: queries from the decoder, keys and values from the
encoder output), the alignment it learns where word order differs ("the restaurant near the station"
→ "车站附近的餐厅"), the masked decoder self-attention, and training (teacher forcing: the shifted target
goes in, every position is predicted at once under the causal mask) beside inference (one token at a time)."""
import html

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _url
from app_pages._markup import md
from i18n import N_, _, joined
from labels import file_label, head_label, head_only, layer_label
from model.data import translation_corpus as corpus
from model.data.word_tokenizer import EOS, SPECIALS
from model.tasks.translation import MAX_SOURCE_CHARS, SourceError, known_words, target_ids
from viz.heatmap import plot_heatmap
from viz.slide import caption_line
from viz.translation import plot_alignment, plot_head_grid, plot_step_probs

DEFAULT_TEXT = "the teacher likes the restaurant near the station ."
MEAN = N_("mean of the heads")
TABS = [N_("Cross-attention"), N_("Alignment lines"), N_("Encoder self-attention"),
        N_("Decoder masked self-attention"), N_("Training vs inference")]
METHODS = {"greedy": N_("greedy"), "beam search": N_("beam search")}     # decoding -> its shown (URL) label
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page
FORCED_MAX = 80                          # characters of the target fed in training
FOUR_DIGITS = N_("p(should write)"), N_("probability")      # columns shown with four decimals


@st.cache_data(max_entries=1)
def example_pairs() -> dict[str, tuple[str, str]]:
    """English -> (reference Chinese, why it is held out, in English: translated where shown) for the default and
    the held-out examples."""
    out = {DEFAULT_TEXT: ("老师喜欢车站附近的餐厅。", N_("held-out words: restaurant near the station"))}
    for p in corpus.examples():
        out[p.en] = (p.zh, N_("held-out template") if p.template in corpus.HELDOUT_TEMPLATES else
                     N_("held-out words"))
    return out


def four_digits() -> dict:
    """column_config for the columns shown with four decimals, by their shown (translated) names."""
    return {_(c): st.column_config.NumberColumn(format="%.4f") for c in FOUR_DIGITS}


def too_long(key: str, limit: int) -> None:
    """A link's text for a box that takes at most `limit` characters: Streamlit keeps the first `limit`; say so,
    as clip_text does for the other boxes."""
    raw = st.query_params.get(key)
    if key not in st.session_state and raw is not None and len(raw) > limit:
        st.warning(_("The text has {n:,} characters; only the first {limit:,} are used.").format(n=len(raw),
                                                                                                 limit=limit))


def pick(weights: np.ndarray, layer: int, head: int | str) -> np.ndarray:
    """(L, H, rows, cols) -> (rows, cols): one head of a layer, or the mean of its heads."""
    w = weights[layer]
    return w.mean(axis=0) if head == MEAN else w[head]


def shown_head(head: int | str) -> str:
    """A head pick as the selectbox shows it (and the URL holds it): "H2" or the translated mean."""
    return _(MEAN) if head == MEAN else head_only(head)


def which(layer: int, head: int | str) -> str:
    """"L1 H2", or "L1, mean of the heads"."""
    return f"{layer_label(layer)}, {_(MEAN)}" if head == MEAN else head_label(layer, head)


TRANSLATOR = _resources.TRANSLATOR


def file_part(layer: int, head: int | str) -> str:
    """"L1H2", or "L1mean", inside a file name."""
    return f"{layer_label(layer)}mean" if head == MEAN else file_label(layer, head)


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


def controls(n_layers: int, n_heads: int) -> tuple[str, int, int, int | str]:
    """Decoding method, beam width, layer and head, in one row."""
    methods = [_(m) for m in METHODS.values()]
    _url.stale_link("tr_method", methods, _("the decoding"), methods[0])
    _url.stale_number("tr_width", 1, 8, _("beam width"), 4)
    _url.stale_link("tr_layer", [layer_label(i) for i in range(n_layers)], _("layer"), layer_label(n_layers - 1))
    _url.stale_link("tr_head", [shown_head(h) for h in (MEAN, *range(n_heads))], _("head"), _(MEAN))
    _url.as_option("tr_method", METHODS, methods)
    _url.as_option("tr_head", (MEAN, *range(n_heads)), [shown_head(h) for h in (MEAN, *range(n_heads))])
    c1, c2, c3, c4 = st.columns([1.3, 1, 1, 1])
    method = c1.radio(_("Decoding"), list(METHODS), format_func=lambda m: _(METHODS[m]), horizontal=True,
                      key="tr_method", bind=BIND, persist_state=KEEP)
    width = c2.slider(_("Beam width"), 1, 8, 4, key="tr_width", disabled=method == "greedy", bind=BIND,
                      persist_state=KEEP)
    layer = c3.selectbox(_("Layer"), range(n_layers), format_func=layer_label, index=n_layers - 1,
                         key="tr_layer", bind=BIND, persist_state=KEEP)
    head = c4.selectbox(_("Head"), [MEAN, *range(n_heads)], key="tr_head", bind=BIND, persist_state=KEEP,
                        format_func=shown_head)
    return method, width, layer, head


def cross_section(run, layer: int, head: int | str, about):
    src, written = run.src_tokens, run.written
    st.markdown(_("Each row is one decoding step; it shows how that step spread its attention over the "
                  "English words. Queries come from the decoder, keys and values from the encoder output."))
    x_title, y_title = _("source word (key)"), _("target written (query)")
    every = _("{layer}, every head").format(layer=layer_label(layer))
    _export.chart(plot_head_grid(run.cross_weights[layer], x_labels=src, y_labels=written,
                                 x_title=x_title, y_title=y_title,
                                 title=_("Cross-attention, {layer}, every head").format(layer=layer_label(layer))),
                  width="stretch", key="tr_cross_grid", main=True,
                  name=(TRANSLATOR, layer_label(layer), "cross_attention_every_head"), caption=about(every))
    _export.chart(plot_heatmap(pick(run.cross_weights, layer, head), x_labels=src, y_labels=written,
                               x_title=x_title, y_title=y_title, value_name=_("weight"),
                               title=_("Cross-attention, {head}").format(head=which(layer, head))), width="stretch",
                  key="tr_cross_one", name=(TRANSLATOR, file_part(layer, head), "cross_attention"),
                  caption=about(which(layer, head)))


def alignment_section(run, layer: int, head: int | str, about):
    _url.stale_number("tr_threshold", 0.05, 0.9, _("the line threshold"), 0.2)
    threshold = st.slider(_("Draw lines for weights of at least"), 0.05, 0.9, 0.2, 0.05, key="tr_threshold",
                          bind=BIND, persist_state=KEEP)
    w = pick(run.cross_weights, layer, head)
    _export.chart(plot_alignment(w, src_tokens=run.src_tokens, tgt_tokens=run.written, threshold=threshold,
                                 title=_("Alignment, {head}").format(head=which(layer, head))),
                  width="stretch", key="tr_alignment", main=True,
                  name=(TRANSLATOR, file_part(layer, head), "alignment"),
                  caption=about(which(layer, head)))
    top = w.argmax(axis=1)
    st.caption(_("Strongest source word per target token: {pairs}").format(pairs=", ".join(
        f"{html.escape(t)} → {html.escape(run.src_tokens[s])}" for t, s in zip(run.written, top))))


def self_section(run, layer: int, which: str, about):
    every = _("{layer}, every head").format(layer=layer_label(layer))
    if which == "encoder":
        st.markdown(_("The encoder reads the whole English sentence; every word may look at every other."))
        _export.chart(plot_head_grid(run.enc_weights[layer], x_labels=run.src_tokens, y_labels=run.src_tokens,
                                     title=_("Encoder self-attention, {layer}").format(layer=layer_label(layer))),
                      width="stretch", key="tr_enc_grid", main=True,
                      name=(TRANSLATOR, layer_label(layer), "encoder_self_attention"), caption=about(every))
        return
    st.markdown(_("The decoder's first attention is masked: the step that writes token *t* sees only "
                  "[BOS] and the tokens already written, never later ones (the upper triangle is zero)."))
    _export.chart(plot_head_grid(run.weights[layer], x_labels=run.tokens, y_labels=run.tokens,
                                 x_title=_("decoder input (key)"), y_title=_("decoder input (query)"),
                                 title=_("Decoder masked self-attention, {layer}").format(layer=layer_label(layer))),
                  width="stretch", key="tr_dec_grid", main=True,
                  name=(TRANSLATOR, layer_label(layer), "decoder_self_attention"), caption=about(every))


def training_vs_inference(dev: str, text: str, run, layer: int, reference: str | None, about):
    _src_tok, tgt_tok = _resources.translator_tokenizers()
    default = reference or run.output
    if st.session_state.get("tr_forced_for") != text:        # another sentence: its own target (a link's wins)
        st.session_state["tr_forced_for"] = text
        st.session_state["tr_forced"] = default
    too_long("tr_forced", FORCED_MAX)
    forced_text = st.text_input(_("Target fed to the decoder in training (teacher forcing)"), max_chars=FORCED_MAX,
                                key="tr_forced", bind=BIND, persist_state=KEEP,
                                help=_("Edit it (say 餐厅 → 银行): training always feeds the true earlier tokens, "
                                       "whatever the model would have written."))
    try:
        forced = _runs.translation_run(_resources.TRANSLATOR, dev, text, "greedy", 1,
                                       tuple(target_ids(tgt_tok, forced_text)))
    except SourceError as e:
        st.error(str(e))
        return
    steps = _runs.translation_steps(_resources.TRANSLATOR, dev, text)
    left, right = st.columns(2)
    with left:
        st.markdown("#### " + _("Training: teacher forcing"))
        st.caption(_("The shifted target ([BOS] + target) goes in; all positions are predicted in one pass "
                     "under the causal mask, each from the *true* earlier tokens."))
        logits = forced.logits
        probs = np.exp(logits - logits.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        want = list(forced.target_ids) + [EOS]
        best = probs.argmax(-1)
        st.dataframe(pd.DataFrame({
            _("decoder input"): forced.tokens, _("should write"): forced.written,
            _("model's top choice"): [tgt_tok.vocab[i] for i in best],
            _(FOUR_DIGITS[0]): probs[np.arange(len(want)), want]}), hide_index=True, column_config=four_digits())
        mean_title = _("Cross-attention, {layer}, mean").format(layer=layer_label(layer))
        _export.chart(plot_heatmap(forced.cross_weights[layer].mean(0), x_labels=forced.src_tokens,
                                   y_labels=forced.written, x_title=_("source word"), y_title=_("target (forced)"),
                                   value_name=_("weight"), title=mean_title),
                      width="stretch", key="tr_forced_cross", main=True,
                      name=(TRANSLATOR, f"{layer_label(layer)}mean", "teacher_forcing_cross_attention"),
                      caption=caption_line(TRANSLATOR, which(layer, MEAN), text=f"{text} → {forced_text}"))
    with right:
        st.markdown("#### " + _("Inference: one token at a time"))
        st.caption(_("Greedy decoding: each step feeds back the token just written; earlier keys and values "
                     "are cached, so a step computes only its own new row."))
        written = [tgt_tok.vocab[i] for i in steps.ids] + ["[EOS]"]
        st.dataframe(pd.DataFrame({
            _("step"): range(1, len(written) + 1),
            _("sees"): ["[BOS]" + "".join(written[:i]) for i in range(len(written))],
            _("writes"): written, _(FOUR_DIGITS[1]): steps.probs}), hide_index=True, column_config=four_digits())
        _export.chart(plot_heatmap(steps.cross[:, layer].mean(1), x_labels=run.src_tokens, y_labels=written,
                                   x_title=_("source word"), y_title=_("step writes"), value_name=_("weight"),
                                   title=_("Cross-attention row of each step, {layer}, mean").format(
                                       layer=layer_label(layer))),
                      width="stretch", key="tr_steps_cross",
                      name=(TRANSLATOR, f"{layer_label(layer)}mean", "greedy_steps_cross_attention"),
                      caption=about(f"{which(layer, MEAN)}, {_(METHODS['greedy'])}"))
    own = _runs.translation_run(_resources.TRANSLATOR, dev, text, "greedy", 1, tuple(steps.ids))
    diff = float(np.abs(own.cross_weights.transpose(2, 0, 1, 3) - steps.cross).max())
    st.info(_("Forcing the model's own greedy output gives the same cross-attention as decoding step by step: max "
              "|difference| = {diff} over every layer, head and step. Training and inference differ only in what is "
              "fed back: the true token or the model's own.").format(diff=f"{diff:.1e}"))
    _export.chart(plot_step_probs(steps.probs, tokens=written, title=_("Probability of each token written")),
                  width="stretch", key="tr_step_probs", name=(TRANSLATOR, "greedy_steps_probabilities"),
                  caption=about(_(METHODS["greedy"])))


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
        st.error(_("The translator only knows the words of its generated corpus, and these are not among them: "
                   "{words}. Each would be read as [UNK], a token it never saw in training, so it does not translate "
                   "the sentence; the words it knows are listed above. It translates sentences such as “the teacher "
                   "likes the restaurant near the station .” or “where is the book ?”.").format(
            words=", ".join(f"“{md(w)}”" for w in unknown)))
        st.stop()
    config = model.config
    method, width, layer, head = controls(config.n_dec_layers or config.n_layers, config.n_heads)
    try:
        run = _runs.translation_run(_resources.TRANSLATOR, dev, text, "greedy" if method == "greedy" else "beam", width)
    except SourceError as e:
        st.error(str(e))
        st.stop()

    reference, held_out = examples.get(" ".join(text.lower().split()), (None, None))
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
    m = meta.get("metrics", {})
    if m:
        st.caption(_("Held-out test: exact match {exact}, character BLEU-4 {bleu} on {n} sentences "
                     "(`python -m model.evaluate translator --json`).").format(
            exact=f"{m.get('exact_match_heldout', 0):.1%}", bleu=f"{m.get('bleu_heldout', 0):.3f}",
            n=m.get("heldout_n", 0)))
    # lazy tabs: only the open one draws (training vs inference runs the model twice more); the open tab is in the URL
    tab_labels = [_(t) for t in TABS]                   # the URL holds the shown (translated) tab label
    _url.stale_link("tr_tab", tab_labels, _("the tab"), tab_labels[0])
    tabs = st.tabs(tab_labels, key="tr_tab", on_change="rerun", bind=BIND)

    def about(where: str) -> str:
        """The slides' caption: the translator, the layer or head, the sentence and its translation."""
        return caption_line(TRANSLATOR, where, text=f"{text} → {run.output}")

    sections = [lambda: cross_section(run, layer, head, about), lambda: alignment_section(run, layer, head, about),
                lambda: self_section(run, layer, "encoder", about), lambda: self_section(run, layer, "decoder", about),
                lambda: training_vs_inference(dev, text, run, layer, reference, about)]
    for tab, section in zip(tabs, sections):
        if tab.open:
            with tab:
                section()
