"""The masks page's live effect: a shipped text model run under a chosen pattern and with its full (or causal)
attention, one head of each side by side, and how far each token's final hidden state moves."""
from collections import Counter

import numpy as np
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _url
from app_pages._markup import visible
from app_pages.views.masks_patterns import MAX_POSITIONS, added, pattern_controls, pattern_name
from i18n import _
from labels import file_label, head_label, head_only, layer_label
from model.data import bpe, text_input
from model.data import course_world as corpus
from model.engine import masks
from model.engine.errors import InputError
from viz import heatmap
from viz import masks as viz
from viz.slide import caption_line

SPARSE_MODEL = "sparse_encoder"
BIND, KEEP = _url.BIND, _url.KEEP


def piece_labels(tokenizer, text: str, rule: str, tokens: tuple[str, ...]) -> list[str]:
    """Readable names for the tokens a run read from `text`: BPE pieces with their whitespace drawn, and a
    character split into byte pieces shown as itself and which part each piece is ("欢 1/2", "欢 2/2")
    instead of "<0xE6><0xAC>"; a word tokenizer's tokens as they are."""
    if not isinstance(tokenizer, bpe.BPETokenizer):
        return list(tokens)
    enc = tokenizer.encode(text, **text_input.RULES[rule])
    parts, seen, out = Counter(enc.spans), Counter(), []
    for piece, (a, b) in zip(enc.pieces[:len(tokens)], enc.spans):
        if a == b or piece == enc.text[a:b]:                 # a special token, or a piece of whole characters
            out.append(visible(piece))
            continue
        seen[(a, b)] += 1
        out.append(f"{visible(enc.text[a:b])} {seen[(a, b)]}/{parts[(a, b)]}")
    return out


def evaluation(meta: dict) -> str | None:
    """The shipped evaluation of a sparse model, from its meta["metrics"], as one sentence (None if absent)."""
    m = meta.get("metrics", {})
    if "mlm_accuracy" not in m:
        return None
    bpe_model = meta.get("tokenizer", {}).get("type") == "bpe"
    values = dict(command=f"`python -m model.evaluate --json {SPARSE_MODEL}`",
                  hidden=f"{m.get('eval_masked_tokens', 0):,}",
                  n=m.get("eval_tokens_per_sequence", "?"), acc=f"{m['mlm_accuracy']:.1%}",
                  width=m.get("pattern_width", "?"), g=m.get("pattern_global_tokens", "?"),
                  full=f"{m.get('mlm_accuracy_full_attention', 0):.1%}",
                  baseline=f"{m.get('mlm_baseline_most_frequent', 0):.1%}",
                  kn=f"{m.get('mlm_baseline_kn3_fill', 0):.1%}")
    if bpe_model:
        line = _("Evaluation on held-out real text it never trained on ({command}): of {hidden} pieces hidden behind "
                 "[MASK] in {n}-piece inputs, it recovers **{acc}** under its own pattern (window ±{width} plus {g} "
                 "extra global token, [CLS])")
        full = _(", **{full}** when the same weights attend to all {n} pieces (it never trained that way)")
        baseline = _(", against **{baseline}** for always guessing the most frequent piece")
    else:
        line = _("Evaluation on held-out text ({command}): of {hidden} words hidden behind [MASK] in {n}-word "
                 "inputs, it recovers **{acc}** under its own pattern (window ±{width} plus {g} extra global token, "
                 "[CLS])")
        full = _(", **{full}** when the same weights attend to all {n} words (it never trained that way)")
        baseline = _(", against **{baseline}** for always guessing the most frequent word")
    line += full if "mlm_accuracy_full_attention" in m else ""
    line += baseline if "mlm_baseline_most_frequent" in m else ""
    if bpe_model and "mlm_baseline_kn3_fill" in m:
        line += _(", and **{kn}** for a Kneser–Ney trigram counted on the training text, filling each gap from the "
                  "two pieces on either side")
    return _("{evaluation}.").format(evaluation=line.format(**values))


def live_section():
    st.subheader(_("Live effect on a trained model"))
    picked = live_model()
    if picked is None:
        return
    name, model, meta, sparse = picked
    text = live_text(model)
    if not text.strip():
        st.info(_("Type some text to run the model."))
        return
    pattern = live_pattern(name, model, text, sparse)
    if pattern is None:
        return
    key, params, causal = pattern
    try:
        runs = _runs.masked_runs(name, _resources.device(), text, key, tuple(sorted(params.items())), causal)
    except InputError as e:
        st.error(str(e))
        return
    live_figures(name, text, key, runs, model.config.kind == "decoder")
    if sparse and (line := evaluation(meta)):
        st.caption(line)


def live_model():
    """The model picker (the sparse encoder first) and what that model was trained under; None when no text model
    is shipped. Returns (name, model, meta, its sparse pattern or None)."""
    models = _resources.text_models()
    if not models:
        st.warning(_("No shipped text model was found in assets/."))
        return None
    default = SPARSE_MODEL if SPARSE_MODEL in models else _resources.selected_text_model()
    _url.stale_link("masks_model", models, _("the model"), default)
    name = st.selectbox(_("Model"), models, index=models.index(default), key="masks_model", bind=BIND,
                        persist_state=KEEP,
                        help=_("{model} was trained under its own sparse pattern: a sliding window plus [CLS] as an "
                               "extra global token.").format(model=SPARSE_MODEL))
    model, meta = _resources.model_or_stop(name)
    sparse = meta.get("config", {}).get("sparse")
    if sparse:
        source = (_("real text (docs/data-card.md) in byte-level BPE pieces") if meta["tokenizer"].get("type") == "bpe"
                  else _("the generated course-world corpus"))
        st.caption(_("**{model}** is a masked-LM encoder trained on {source}, only ever under a window of ±{width} "
                     "tokens plus {g} extra global token: [CLS], put in front of the text and standing for no word "
                     "(the textbook's extra kind, 12.9); its own pattern is preselected below.").format(
            model=name, source=source, width=sparse["width"], g=sparse["n_global"]))
    return name, model, meta, sparse


def live_text(model) -> str:
    """The text box of the live effect, clipped to what the page reads."""
    text = _resources.clip_text(st.text_area(
        _("Text"), corpus.PARAGRAPH, key="masks_text", height=90, bind=_url.text_bind("masks_text"),
        persist_state=KEEP, help=_("Any text, English or Chinese, up to {chars:,} characters; the model reads at "
                                   "most {tokens} tokens.").format(chars=_resources.MAX_TEXT_CHARS,
                                                                   tokens=model.config.max_len)))
    _url.long_text_note("masks_text")
    return text


def live_pattern(name: str, model, text: str, sparse: dict | None) -> tuple | None:
    """The pattern picker, preset to the model's own pattern (global tokens at each sentence's start), and what the
    pattern means for this model; None when extra global tokens do not match the model's own front tokens.
    Returns (key, params, causal)."""
    rule = _resources.text_rule(name)
    front = text_input.FRONT[rule]
    read = text_input.encode(_resources.load_tokenizer(name), text, rule).tokens[:model.config.max_len]
    own = dict(width=sparse["width"], n_global=sparse["n_global"]) if sparse else dict(width=3, n_global=len(front))
    own["positions"] = text_input.sentence_starts(read)[:MAX_POSITIONS] or (0,)   # chosen: each sentence's start
    decoder = model.config.kind == "decoder"
    key, params, causal = pattern_controls("masks_live", model.config.max_len, "extra_global" if sparse else "window",
                                           own, causal_box=not decoder)
    if decoder:
        st.caption(_("A decoder keeps its causal mask: the pattern is applied below the diagonal."))
    if key == "global":
        st.caption(_("Chosen global tokens start at the first token of each sentence (the textbook's example), "
                     "words of the text."))
    elif masks.PATTERNS[key].adds:
        if added(key, params) != len(front):
            st.error(_("Extra global tokens are tokens put in front of the text. {model} reads {k} there ({tokens}), "
                       "a token it learned that stands for no word: set g = {k}. Any other number would give it "
                       "tokens it never saw; chosen global tokens make words of the text global instead.").format(
                model=name, k=len(front), tokens=", ".join(front) or "—"))
            return None
        st.caption(_("The extra global token here is the model's own {tokens}, the token its text rule puts in front "
                     "of the text.").format(tokens=", ".join(front)))
    return key, params, causal


def live_figures(name: str, text: str, key: str, runs, decoder: bool):
    """The masked and the full run measured against each other, one head of each side by side, and how far each
    token's final hidden state moves."""
    run, full, mask = runs.masked, runs.full, runs.mask
    for note in run.notices:
        st.info(note)
    if any(run.unknown):
        st.warning(_("**{model}** has a word vocabulary; not in it, so read as [UNK]: {words}").format(
            model=name, words=", ".join(dict.fromkeys(t for t, u in zip(run.tokens, run.unknown) if u))))
    tokenizer = _resources.load_tokenizer(name)
    labels = piece_labels(tokenizer, text, _resources.text_rule(name), run.tokens)
    h_mask, h_full = run.hidden[-1], full.hidden[-1]                         # (N, C)
    change = np.linalg.norm(h_mask - h_full, axis=1) / np.maximum(np.linalg.norm(h_full, axis=1), 1e-12)
    live_metrics(run, full, mask)
    heads_side_by_side(name, text, key, labels, run, full, decoder)
    if isinstance(tokenizer, bpe.BPETokenizer):
        st.caption(_("Labels are the model's byte-level BPE pieces, numbered by position: ␣ is the space a piece "
                     "starts with; a character split into byte pieces shows as itself and the part (餐 1/3)."))
    _export.chart(viz.plot_output_change(labels, change, title=_("How much each token's final hidden state "
                                                                 "moves: ‖h_mask − h_full‖ ÷ ‖h_full‖")),
                  key="masks_live_change", name=(name, "output_change", "under", key),
                  caption=caption_line(name, pattern_name(key), text=text))


def live_metrics(run, full, mask: np.ndarray):
    """Four numbers: tokens, the mask's density, the largest weight on a blocked pair, top-1 predictions changed."""
    blocked = run.weights[:, :, ~mask]                                       # (L, H, blocked pairs)
    flips = int((run.logits.argmax(-1) != full.logits.argmax(-1)).sum())
    c1, c2, c3, c4 = st.columns(4)
    c1.metric(_("tokens N"), len(run.tokens))
    c2.metric(_("density of the mask"), f"{mask.mean():.1%}")
    largest = float(blocked.max()) if blocked.size else 0.0
    c3.metric(_("largest weight on a blocked pair"), _("0 exactly") if largest == 0 else f"{largest:.1e}",
              help=_("Blocked scores are set to −∞ before the softmax, so their weights are exactly 0."))
    c4.metric(_("top-1 predictions changed"), _("{flips} of {n}").format(flips=flips, n=len(run.tokens)),
              help=_("The model's own output at each position, under the mask vs with full attention."))


def heads_side_by_side(name: str, text: str, key: str, labels: list[str], run, full, decoder: bool):
    """A layer and head picked with sliders, drawn under the pattern and under full (or causal) attention."""
    L, H = run.n_layers, run.n_heads
    _url.stale_link("masks_layer", [layer_label(i) for i in range(L)], _("layer"), layer_label(L - 1))
    _url.stale_link("masks_head", [head_only(i) for i in range(H)], _("head"), head_only(0))
    lc, hc = st.columns(2)
    # sliders over labels, so the address reads ?masks_layer=L1&masks_head=H2
    layer = lc.select_slider(_("layer"), range(L), L - 1, format_func=layer_label, key="masks_layer", bind=BIND,
                             persist_state=KEEP)
    head = hc.select_slider(_("head"), range(H), 0, format_func=head_only, key="masks_head", bind=BIND,
                            persist_state=KEEP)
    a, b = (_present.main() or st).columns(2)
    about = caption_line(name, head_label(layer, head), text=text)
    with a:
        _export.chart(heatmap.plot_heatmap(run.weights[layer, head], x_labels=labels, y_labels=labels,
                                           x_title=_("key"), y_title=_("query"), value_name=_("weight"),
                                           title=_("Under {pattern}: {head}").format(
                                               pattern=pattern_name(key), head=head_label(layer, head))),
                      key="masks_live_masked", name=(name, file_label(layer, head), "under", key), caption=about)
    with b:
        whole = _("Causal attention: {head}") if decoder else _("Full attention: {head}")
        _export.chart(heatmap.plot_heatmap(full.weights[layer, head], x_labels=labels, y_labels=labels,
                                           x_title=_("key"), y_title=_("query"), value_name=_("weight"),
                                           title=whole.format(head=head_label(layer, head))),
                      key="masks_live_full", name=(name, file_label(layer, head), "causal" if decoder else "full"),
                      caption=about)
