"""Translation: an encoder-decoder Transformer translating English into Chinese. It teaches the
decoder's second attention (cross-attention: queries from the decoder, keys and values from the
encoder output), the alignment it learns where word order differs ("the restaurant near the station"
→ "车站附近的餐厅"), the masked decoder self-attention, and training (teacher forcing: the shifted target
goes in, every position is predicted at once under the causal mask) beside inference (one token at a time)."""
import html

import numpy as np
import pandas as pd
import streamlit as st

from app_pages import _export, _resources, _runs, _url
from app_pages._markup import md
from labels import file_label, head_label, head_only, layer_label
from model.data import translation_corpus as corpus
from model.data.word_tokenizer import EOS, SPECIALS
from model.tasks.translation import MAX_SOURCE_CHARS, SourceError, known_words, target_ids
from viz.heatmap import plot_heatmap
from viz.slide import caption_line
from viz.translation import plot_alignment, plot_head_grid, plot_step_probs

DEFAULT_TEXT = "the teacher likes the restaurant near the station ."
MEAN = "mean of the heads"
TABS = ["Cross-attention", "Alignment lines", "Encoder self-attention", "Decoder masked self-attention",
        "Training vs inference"]
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page
FORCED_MAX = 80                          # characters of the target fed in training
FOUR_DIGITS = {c: st.column_config.NumberColumn(format="%.4f") for c in ("p(should write)", "probability")}


@st.cache_data(max_entries=1)
def example_pairs() -> dict[str, tuple[str, str]]:
    """English -> (reference Chinese, why it is held out) for the default and the held-out examples."""
    out = {DEFAULT_TEXT: ("老师喜欢车站附近的餐厅。", "held-out words: restaurant near the station")}
    for p in corpus.examples():
        out[p.en] = (p.zh, "held-out template" if p.template in corpus.HELDOUT_TEMPLATES else "held-out words")
    return out


def too_long(key: str, limit: int) -> None:
    """A link's text for a box that takes at most `limit` characters: Streamlit keeps the first `limit`; say so,
    as clip_text does for the other boxes."""
    raw = st.query_params.get(key)
    if key not in st.session_state and raw is not None and len(raw) > limit:
        st.warning(f"The text has {len(raw):,} characters; only the first {limit:,} are used.")


def pick(weights: np.ndarray, layer: int, head: int | str) -> np.ndarray:
    """(L, H, rows, cols) -> (rows, cols): one head of a layer, or the mean of its heads."""
    w = weights[layer]
    return w.mean(axis=0) if head == MEAN else w[head]


def which(layer: int, head: int | str) -> str:
    """"L1 H2", or "L1, mean of the heads"."""
    return f"{layer_label(layer)}, {MEAN}" if head == MEAN else head_label(layer, head)


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
    st.markdown(f"Unlike every other page, which reads any text through the byte-level BPE tokenizer, the "
                f"translator keeps its **own word vocabularies**, those of its generated corpus: **{len(english)}** "
                f"English words in, **{len(chinese)}** Chinese characters out. This is the one place in the app "
                "where [UNK] remains, by design: a word outside the vocabulary would be read as [UNK], a token the "
                "translator never saw in training, so it names the word instead of translating.")
    with st.expander(f"Known words: the translator's {len(english)} English words and {len(chinese)} Chinese "
                     "characters", expanded=bool(unknown)):
        st.markdown("**English (source):** " + " ".join(f"`{w}`" for w in english))
        st.markdown("**Chinese (target):** " + " ".join(f"`{c}`" for c in chinese))
        st.caption("Capitals are read as lower case. Special tokens ([BOS], [EOS], …) are not listed.")


def use_example():
    st.session_state.tr_text = st.session_state.tr_example


def controls(n_layers: int, n_heads: int) -> tuple[str, int, int, int | str]:
    """Decoding method, beam width, layer and head, in one row."""
    _url.stale_link("tr_method", ["greedy", "beam search"], "the decoding", "greedy")
    _url.stale_number("tr_width", 1, 8, "beam width", 4)
    _url.stale_link("tr_layer", [layer_label(i) for i in range(n_layers)], "layer", layer_label(n_layers - 1))
    _url.stale_link("tr_head", [MEAN, *map(head_only, range(n_heads))], "head", MEAN)
    c1, c2, c3, c4 = st.columns([1.3, 1, 1, 1])
    method = c1.radio("Decoding", ["greedy", "beam search"], horizontal=True, key="tr_method", bind=BIND,
                      persist_state=KEEP)
    width = c2.slider("Beam width", 1, 8, 4, key="tr_width", disabled=method == "greedy", bind=BIND,
                      persist_state=KEEP)
    layer = c3.selectbox("Layer", range(n_layers), format_func=layer_label, index=n_layers - 1,
                         key="tr_layer", bind=BIND, persist_state=KEEP)
    head = c4.selectbox("Head", [MEAN, *range(n_heads)], key="tr_head", bind=BIND, persist_state=KEEP,
                        format_func=lambda h: h if h == MEAN else head_only(h))
    return method, width, layer, head


def cross_section(run, layer: int, head: int | str, about):
    src, written = run.src_tokens, run.written
    st.markdown("Each row is one decoding step; it shows how that step spread its attention over the "
                "English words. Queries come from the decoder, keys and values from the encoder output.")
    _export.chart(plot_head_grid(run.cross_weights[layer], x_labels=src, y_labels=written,
                                 x_title="source word (key)", y_title="target written (query)",
                                 title=f"Cross-attention, {layer_label(layer)}, every head"), width="stretch",
                  key="tr_cross_grid", name=(TRANSLATOR, layer_label(layer), "cross_attention_every_head"),
                  caption=about(f"{layer_label(layer)}, every head"))
    _export.chart(plot_heatmap(pick(run.cross_weights, layer, head), x_labels=src, y_labels=written,
                               x_title="source word (key)", y_title="target written (query)",
                               title=f"Cross-attention, {which(layer, head)}"), width="stretch",
                  key="tr_cross_one", name=(TRANSLATOR, file_part(layer, head), "cross_attention"),
                  caption=about(which(layer, head)))


def alignment_section(run, layer: int, head: int | str, about):
    _url.stale_number("tr_threshold", 0.05, 0.9, "the line threshold", 0.2)
    threshold = st.slider("Draw lines for weights of at least", 0.05, 0.9, 0.2, 0.05, key="tr_threshold", bind=BIND,
                          persist_state=KEEP)
    w = pick(run.cross_weights, layer, head)
    _export.chart(plot_alignment(w, src_tokens=run.src_tokens, tgt_tokens=run.written,
                                 threshold=threshold, title=f"Alignment, {which(layer, head)}"),
                  width="stretch", key="tr_alignment", name=(TRANSLATOR, file_part(layer, head), "alignment"),
                  caption=about(which(layer, head)))
    top = w.argmax(axis=1)
    st.caption("Strongest source word per target token: " + ", ".join(
        f"{html.escape(t)} → {html.escape(run.src_tokens[s])}" for t, s in zip(run.written, top)))


def self_section(run, layer: int, which: str, about):
    if which == "encoder":
        st.markdown("The encoder reads the whole English sentence; every word may look at every other.")
        _export.chart(plot_head_grid(run.enc_weights[layer], x_labels=run.src_tokens, y_labels=run.src_tokens,
                                     title=f"Encoder self-attention, {layer_label(layer)}"), width="stretch",
                      key="tr_enc_grid", name=(TRANSLATOR, layer_label(layer), "encoder_self_attention"),
                      caption=about(f"{layer_label(layer)}, every head"))
        return
    st.markdown("The decoder's first attention is masked: the step that writes token *t* sees only "
                "[BOS] and the tokens already written, never later ones (the upper triangle is zero).")
    _export.chart(plot_head_grid(run.weights[layer], x_labels=run.tokens, y_labels=run.tokens,
                                 x_title="decoder input (key)", y_title="decoder input (query)",
                                 title=f"Decoder masked self-attention, {layer_label(layer)}"), width="stretch",
                  key="tr_dec_grid", name=(TRANSLATOR, layer_label(layer), "decoder_self_attention"),
                  caption=about(f"{layer_label(layer)}, every head"))


def training_vs_inference(dev: str, text: str, run, layer: int, reference: str | None, about):
    _, tgt_tok = _resources.translator_tokenizers()
    default = reference or run.output
    if st.session_state.get("tr_forced_for") != text:        # another sentence: its own target (a link's wins)
        st.session_state["tr_forced_for"] = text
        st.session_state["tr_forced"] = default
    too_long("tr_forced", FORCED_MAX)
    forced_text = st.text_input("Target fed to the decoder in training (teacher forcing)", max_chars=FORCED_MAX,
                                key="tr_forced", bind=BIND, persist_state=KEEP,
                                help="Edit it (say 餐厅 → 银行): training always feeds the true earlier tokens, "
                                     "whatever the model would have written.")
    try:
        forced = _runs.translation_run(_resources.TRANSLATOR, dev, text, "greedy", 1,
                                       tuple(target_ids(tgt_tok, forced_text)))
    except SourceError as e:
        st.error(str(e))
        return
    steps = _runs.translation_steps(_resources.TRANSLATOR, dev, text)
    left, right = st.columns(2)
    with left:
        st.markdown("#### Training: teacher forcing")
        st.caption("The shifted target ([BOS] + target) goes in; all positions are predicted in one pass "
                   "under the causal mask, each from the *true* earlier tokens.")
        logits = forced.logits
        probs = np.exp(logits - logits.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        want = list(forced.target_ids) + [EOS]
        best = probs.argmax(-1)
        st.dataframe(pd.DataFrame({
            "decoder input": forced.tokens, "should write": forced.written,
            "model's top choice": [tgt_tok.vocab[i] for i in best],
            "p(should write)": probs[np.arange(len(want)), want]}), hide_index=True, column_config=FOUR_DIGITS)
        _export.chart(plot_heatmap(forced.cross_weights[layer].mean(0), x_labels=forced.src_tokens,
                                   y_labels=forced.written, x_title="source word",
                                   y_title="target (forced)", title=f"Cross-attention, {layer_label(layer)}, mean"),
                      width="stretch", key="tr_forced_cross",
                      name=(TRANSLATOR, f"{layer_label(layer)}mean", "teacher_forcing_cross_attention"),
                      caption=caption_line(TRANSLATOR, f"{layer_label(layer)}, mean of the heads",
                                           text=f"{text} → {forced_text}"))
    with right:
        st.markdown("#### Inference: one token at a time")
        st.caption("Greedy decoding: each step feeds back the token just written; earlier keys and values "
                   "are cached, so a step computes only its own new row.")
        written = [tgt_tok.vocab[i] for i in steps.ids] + ["[EOS]"]
        st.dataframe(pd.DataFrame({
            "step": range(1, len(written) + 1), "sees": ["[BOS]" + "".join(written[:i]) for i in range(len(written))],
            "writes": written, "probability": steps.probs}), hide_index=True, column_config=FOUR_DIGITS)
        _export.chart(plot_heatmap(steps.cross[:, layer].mean(1), x_labels=run.src_tokens, y_labels=written,
                                   x_title="source word", y_title="step writes",
                                   title=f"Cross-attention row of each step, {layer_label(layer)}, mean"),
                      width="stretch", key="tr_steps_cross",
                      name=(TRANSLATOR, f"{layer_label(layer)}mean", "greedy_steps_cross_attention"),
                      caption=about(f"{layer_label(layer)}, mean of the heads, greedy"))
    own = _runs.translation_run(_resources.TRANSLATOR, dev, text, "greedy", 1, tuple(steps.ids))
    diff = float(np.abs(own.cross_weights.transpose(2, 0, 1, 3) - steps.cross).max())
    st.info(f"Forcing the model's own greedy output gives the same cross-attention as decoding step by "
            f"step: max |difference| = {diff:.1e} over every layer, head and step. Training and inference "
            "differ only in what is fed back: the true token or the model's own.")
    _export.chart(plot_step_probs(steps.probs, tokens=written, title="Probability of each token written"),
                  width="stretch", key="tr_step_probs", name=(TRANSLATOR, "greedy_steps_probabilities"),
                  caption=about("greedy"))


def render():
    st.title("Translation: an encoder-decoder at work")
    st.markdown("English in, Chinese out. The encoder reads the English sentence; the decoder writes Chinese one "
                "character at a time, and its **cross-attention** looks back at the English words. Chinese puts "
                "modifiers, place and time *before* what they describe, so the alignment is not a diagonal.")
    model, meta = _resources.model_or_stop(_resources.TRANSLATOR)
    src_tok, tgt_tok = _resources.translator_tokenizers()
    dev = _resources.device()
    examples = example_pairs()
    vocabulary = st.container()
    # the address names the example by its English sentence; a link with only one of the two opens a matching pair
    _url.gallery_link("tr_example", "tr_text", {en: en for en in examples}, DEFAULT_TEXT)
    _url.stale_link("tr_example", list(examples), "the example", DEFAULT_TEXT)
    too_long("tr_text", MAX_SOURCE_CHARS)
    st.selectbox("Example sentence (all held out: never seen in training)", list(examples), key="tr_example",
                 on_change=use_example, bind=BIND, persist_state=KEEP,
                 help="Each was held out of training, its words or its sentence pattern; the line under the "
                      "translation says which.")
    text = st.text_input("English sentence", DEFAULT_TEXT, max_chars=MAX_SOURCE_CHARS, key="tr_text", bind=BIND,
                         persist_state=KEEP,
                         help="Words of the translator's own English vocabulary (under Known words above), "
                              "separated by spaces; type a sentence and press Enter.")
    unknown = outside_vocabulary(src_tok, text)
    with vocabulary:
        vocabulary_section(src_tok, tgt_tok, unknown)
    if unknown:
        st.error("The translator only knows the words of its generated corpus, and these are not among them: "
                 + ", ".join(f"“{md(w)}”" for w in unknown) + ". Each would be read as [UNK], a token it never "
                 "saw in training, so it does not translate the sentence; the words it knows are listed above. "
                 "It translates sentences such as “the teacher likes the restaurant near the station .” or "
                 "“where is the book ?”.")
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
    line = (f"{method}{f' (width {width})' if method != 'greedy' else ''} · log-probability {score:.4g} "
            f"(probability {np.exp(score):.4f})")
    if reference:
        line += (f" · {held_out}, reference " + html.escape(reference)
                 + (" ✓ exact match" if reference == run.output else " ✗ differs"))
    st.caption(line)
    if run.beams:
        with st.expander(f"All {len(run.beams)} hypotheses the beam kept, best first"):
            rows = [{"translation": t, "log-probability": sc,
                     "log-probability per token (ranks them)": sc / (len(t) + 1), "ended with [EOS]": f}
                    for t, sc, f in run.beams]
            st.dataframe(pd.DataFrame(rows), hide_index=True)
    m = meta.get("metrics", {})
    if m:
        st.caption(f"Held-out test: exact match {m.get('exact_match_heldout', 0):.1%}, character BLEU-4 "
                   f"{m.get('bleu_heldout', 0):.3f} on {m.get('heldout_n', 0)} sentences "
                   "(`python -m model.evaluate translator --json`).")
    # lazy tabs: only the open one draws (training vs inference runs the model twice more); the open tab is in the URL
    _url.stale_link("tr_tab", TABS, "the tab", TABS[0])
    tabs = st.tabs(TABS, key="tr_tab", on_change="rerun", bind=BIND)
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
