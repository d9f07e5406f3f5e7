"""Decoder & generation: how a GPT-style model writes text one token at a time (textbook 12.7), on any typed text.

Teaches: the next-token distribution and temperature; greedy choice, seeded top-k sampling and beam search
(with its tree); the causal attention that grows one row per generated token and puts exactly zero weight on
the future; masked-LM fill-in with the encoder (context on both sides); and the two pre-training objectives
side by side (which positions give a loss term). Both models read byte-level BPE pieces, so no text is unknown.
The tab "Learning from the prompt" (app_pages/views/incontext.py): a small decoder copying a span it saw earlier in
its prompt; the last, "Logit lens" (app_pages/views/logit_lens.py): what each layer would predict next.
"""
import re
import unicodedata

import numpy as np
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _url
from app_pages._markup import esc, md, visible
from app_pages._numbers import plain, prob, spoken
from app_pages.views import chain_rule, incontext, logit_lens
from i18n import N_, _, joined, language, ngettext
from labels import file_label, head_label, head_only, layer_label
from model import checkpoints
from model.analysis import published
from model.checkpoints import CheckpointError
from model.data import text_input
from model.data.bpe import EOS
from model.tasks.fill_mask import FillMaskError, encode_with_masks
from model.tasks.generation import MAX_NEW_TOKENS, GenerationError
from model.training.objectives import choose_masked
from viz.generation import plot_beam_tree, plot_causal_growth, plot_next_token_bars, plot_objectives, plot_step_probs
from viz.heatmap import plot_heatmap
from viz.slide import caption_line

MAX_PROMPT_CHARS = 2_000
MAX_FILL_CHARS = 600
MAX_SENTENCE_CHARS = 400
MAX_FILL_SHOWN = 6             # masked pieces drawn with bars and attention; the rest are listed in a table
PIECES_LISTED = 40             # prompt pieces listed under the prompt
DEFAULT_PROMPT = "The restaurant refused to serve me a"
DEFAULT_FILL = "piano: a keyboard instrument that is <mask> by pressing keys."
DEFAULT_SENTENCE = "The restaurant refused to serve me a ham sandwich because it only cooks vegetarian food."
TABS = [N_("Next token"), N_("Generate step by step"), N_("Beam search"), N_("Fill-in (encoder)"),
        N_("Objectives side by side"), N_("Sentence probability"), N_("Learning from the prompt"),
        N_("Logit lens")]
STRATEGIES = {"greedy": N_("greedy"), "top_k": N_("top-k sampling")}
MEAN = N_("mean of heads")
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page
CORPORA = {"model.data.real_text": N_("real English and Chinese text: WordNet's glosses and examples, English "
                                      "fortune cookies, Chinese fortunes and poems (docs/data-card.md)")}
POSITIONS = {"learned": N_("learned"), "sinusoidal": N_("sinusoidal"), "relative": N_("relative"),
             "rope": "RoPE", "alibi": "ALiBi", "none": N_("none")}       # config pos_encoding -> its name in text


def shown_head(h) -> str:
    """A head pick as the selectbox shows it (and the URL holds it): "H1" or the translated mean."""
    return _(h) if isinstance(h, str) else head_only(h)


def continuation(tok, ids, n_prompt: int) -> str:
    """The text ids[n_prompt:] add to the prompt, decoded with the prompt so spaces (and characters whose bytes
    straddle the two) come out right; special tokens left out."""
    head, full = tok.decode(ids[:n_prompt], skip_special=True), tok.decode(ids, skip_special=True)
    return full[len(head):] if full.startswith(head) else tok.decode(ids[n_prompt:], skip_special=True,
                                                                      strip_prefix=False)


def written(head: str, tail: str) -> str:
    """Markdown of a prompt and its continuation, the continuation in bold line by line; typed text shown as
    typed. Spaces stay outside the ** (where they would break it), and a hair space (Unicode whitespace) goes
    before ** that would otherwise sit between a letter and punctuation, where CommonMark would not open it."""
    out = md(head).replace("\n", "  \n")
    for n, line in enumerate(tail.split("\n")):
        out += "  \n" if n else ""
        core = line.strip()
        if not core:
            out += line
            continue
        lead = line[:len(line) - len(line.lstrip())]
        prev = (out + lead)[-1:]
        starts_punct = unicodedata.category(core[0])[0] in "PS"
        gap = "\u200a" if prev and starts_punct and not (prev.isspace() or unicodedata.category(prev)[0] in "PS") \
            else ""
        out += f"{lead}{gap}**{md(core)}**{line[len(line.rstrip()):]}"
    return out


def code(piece: str) -> str:
    """A piece as a Markdown code span (a fence longer than any run of backticks inside it)."""
    fence = "`" * (max((len(r) for r in re.findall("`+", piece)), default=0) + 1)
    pad = " " if "`" in piece else ""
    return f"{fence}{pad}{piece}{pad}{fence}"


def describe(name: str, meta: dict) -> str:
    """What the decoder is, read from its metadata: size, positions, context, tokenizer, corpus, held-out score."""
    c, r, m = meta["config"], meta.get("recipe", {}), meta.get("metrics", {})
    corpus = r.get("corpus", "")
    corpus = next((_(text) for key, text in CORPORA.items() if corpus.startswith(key)),
                  md(corpus) if corpus else _("an unstated corpus"))
    seen = _(", {millions:.1f}M training tokens seen").format(millions=r["tokens_seen"] / 1e6) \
        if r.get("tokens_seen") else ""
    pos = c["pos_encoding"]
    out = _("Every number here comes from the shipped model `{name}`: a GPT-style decoder, {layers} layers × "
            "{heads} heads, d_model {d_model}, {positions} positions, a context of {context} pieces, byte-level BPE "
            "of {vocab:,} tokens; trained on {corpus}{seen}.").format(
        name=name, layers=c["n_layers"], heads=c["n_heads"], d_model=c["d_model"],
        positions=_(POSITIONS[pos]) if pos in POSITIONS else f"`{pos}`", context=c["max_len"],
        vocab=c["vocab_size"], corpus=corpus, seen=seen)
    ppl, bigram = m.get("perplexity_heldout_real"), m.get("bigram_perplexity_heldout_real")
    if ppl is not None and bigram is not None:
        verdict = (_("lower is better: it beats the bigram") if ppl < bigram else
                   _("lower is better: the bigram still wins, as this small model was trained briefly on CPUs, so "
                     "expect odd text"))
        out += _(" Held-out perplexity {ppl:.1f} against {bigram:.1f} for a bigram counted on the same training "
                 "text ({verdict}).").format(ppl=ppl, bigram=bigram, verdict=verdict)
    return out


def render():
    st.title(_("Decoder & generation"))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    st.caption(_("A GPT-style decoder is **autoregressive** (textbook 12.7.1): it predicts the next piece of text from "
                 "the pieces on its left only; fed its own output back, it writes. Type anything, English or Chinese: "
                 "it is read in byte-level BPE pieces, so no word is unknown."))
    dev = _resources.device()
    gpt = _resources.GPT_MODEL
    model, meta = _resources.model_or_stop(gpt)
    tok = _resources.load_tokenizer(gpt)
    st.caption(describe(gpt, meta))

    prompt = _resources.clip_text(st.text_input(_("Prompt"), DEFAULT_PROMPT, key="gen_prompt",
                                                bind=_url.text_bind("gen_prompt"), persist_state=KEEP,
                                                help=_("Any text; the model continues it piece by piece.")),
                                  MAX_PROMPT_CHARS)
    _url.long_text_note("gen_prompt")
    enc = text_input.encode(tok, prompt, _resources.text_rule(gpt))
    # nothing but whitespace typed: an empty prompt, which each prompt tab refuses with a readable message; the page
    # goes on, so the fill-in and objectives tabs (and every pick, kept for the session) are not reset by it
    prompt_ids = tuple(enc.ids) if prompt.strip() else ()
    if prompt_ids:
        pieces = enc.tokens[1:]
        shown = " ".join(code(visible(p)) for p in pieces[:PIECES_LISTED])
        more = f" … (+{len(pieces) - PIECES_LISTED})" if len(pieces) > PIECES_LISTED else ""
        st.caption(ngettext("{n} piece after [BOS] (␣ is a space): {pieces}{more}",
                            "{n} pieces after [BOS] (␣ is a space): {pieces}{more}", len(pieces)).format(
            n=len(pieces), pieces=shown, more=more))

    # lazy tabs: only the open one runs its model (its picks survive in the session); the open tab is in the URL
    tabs = [_(t) for t in TABS]                         # the URL holds the shown (translated) tab label
    _url.stale_link("gen_tab", tabs, _("the tab"), tabs[0])
    tab_next, tab_gen, tab_beam, tab_fill, tab_obj, tab_chain, tab_ic, tab_lens = st.tabs(
        tabs, key="gen_tab", on_change="rerun", bind=BIND)
    if tab_next.open:
        with tab_next:
            next_token(gpt, dev, tok, prompt, prompt_ids)
    if tab_gen.open:
        with tab_gen:
            step_by_step(gpt, dev, tok, model, prompt_ids, prompt)
    if tab_beam.open:
        with tab_beam:
            beams(gpt, dev, tok, prompt_ids, prompt)
    if tab_fill.open:
        with tab_fill:
            fill_in(dev)
    if tab_obj.open:
        with tab_obj:
            objectives(gpt, dev, tok)
    if tab_chain.open:
        with tab_chain:
            chain_rule.section(gpt, dev)
    if tab_ic.open:
        with tab_ic:
            incontext.section(dev)
    if tab_lens.open:
        with tab_lens:
            logit_lens.section(gpt, dev, prompt)


def next_token(gpt, dev, tok, prompt, prompt_ids):
    _url.stale_number("next_temp", 0.1, 3.0, _("temperature"), 1.0)
    _url.stale_number("next_top", 5, 25, _("tokens shown"), 12)
    c1, c2 = st.columns(2)
    temp = c1.slider(_("Temperature"), 0.1, 3.0, 1.0, 0.1, key="next_temp", bind=BIND, persist_state=KEEP,
                     help=_("softmax(logits / T): below 1 sharpens, above 1 flattens."))
    top_n = c2.slider(_("Tokens shown"), 5, 25, 12, key="next_top", bind=BIND, persist_state=KEEP)
    try:
        probs = _runs.gpt_next_probs(gpt, dev, prompt_ids, temp)
    except GenerationError as e:
        st.error(str(e))
        return
    order = np.argsort(-probs)[:top_n]
    pieces = [visible(tok.piece(i)) for i in order]
    title = _("Pr(next token | “{prompt}”), T = {t}").format(prompt=esc(prompt[-60:]), t=f"{temp:g}")
    _export.chart(plot_next_token_bars(pieces, probs[order], chosen=pieces[0], title=title), key="next_bars", main=True,
                  name=(gpt, "next_token", f"T{temp:g}"), caption=caption_line(gpt, f"T = {temp:g}", text=prompt))
    entropy = float(-(probs * np.log(np.clip(probs, 1e-300, None))).sum())
    m1, m2, m3 = st.columns(3)
    m1.metric(_("Greedy pick"), pieces[0])
    m2.metric(_("Its probability"), f"{probs[order[0]]:.4f}")
    m3.metric(_("Entropy (nats)"), f"{entropy:.3f}")
    st.caption(_("One bar per BPE piece of the {n:,}-token vocabulary; ␣ is a space (a piece that starts a word), "
                 "↵ a line break.").format(n=len(tok)))


def step_by_step(gpt, dev, tok, model, prompt_ids, prompt):
    L, H = model.config.n_layers, model.config.n_heads
    _url.stale_link("gen_strategy", [_(s) for s in STRATEGIES.values()], _("the strategy"), _(STRATEGIES["greedy"]))
    _url.as_option("gen_strategy", STRATEGIES, [_(s) for s in STRATEGIES.values()])
    for key, lo, hi, what, start in (("gen_k", 1, 20, "k", 5), ("gen_temp", 0.1, 3.0, _("temperature"), 1.0),
                                     ("gen_seed", 0, 10_000, _("seed"), 0), ("gen_max_new", 1, MAX_NEW_TOKENS,
                                                                             _("new tokens"), 24)):
        _url.stale_number(key, lo, hi, what, start)
    c1, c2, c3, c4, c5 = st.columns(5)
    strategy = c1.radio(_("Strategy"), list(STRATEGIES), key="gen_strategy", format_func=lambda s: _(STRATEGIES[s]),
                        bind=BIND, persist_state=KEEP)
    sampling = dict(disabled=strategy == "greedy", bind=BIND, persist_state=KEEP)
    k = c2.slider("k", 1, 20, 5, key="gen_k", **sampling)
    temp_g = c3.slider(_("Temperature"), 0.1, 3.0, 1.0, 0.1, key="gen_temp", **sampling)
    seed = int(c4.number_input(_("Seed"), 0, 10_000, 0, key="gen_seed", **sampling))
    max_new = c5.slider(_("New tokens"), 1, MAX_NEW_TOKENS, 24, key="gen_max_new", bind=BIND, persist_state=KEEP)
    try:
        gen = _runs.gpt_generate(gpt, dev, prompt_ids, max_new, strategy, k, temp_g, seed, EOS)
    except GenerationError as e:
        st.error(str(e))
        return
    run = gen.run
    tokens = [visible(tok.piece(i)) for i in run.ids]
    n_new = len(run.new_ids)
    signature = (prompt_ids, max_new, strategy, k, temp_g, seed)
    if st.session_state.get("gen_signature") != signature or st.session_state.get("gen_step", 0) > n_new:
        st.session_state.gen_signature, st.session_state.gen_step = signature, n_new   # a new run: show its end

    def move(d):
        st.session_state.gen_step = int(np.clip(st.session_state.gen_step + d, 1, n_new))

    b1, b2, b3 = st.columns([1, 1, 6])
    b1.button(_("◀ back"), on_click=move, args=(-1,), key="gen_back", disabled=n_new < 2)
    b2.button(_("next ▶"), on_click=move, args=(1,), key="gen_next", disabled=n_new < 2)
    if n_new > 1:
        _url.stale_number("gen_step", 1, n_new, _("step"), n_new)
    # a select_slider keeps one identity when the number of steps changes (a slider's max is part of its
    # identity, and a new identity would take the link's old step over the new run's last one)
    step = b3.select_slider(_("Step"), range(1, n_new + 1), key="gen_step", bind=BIND,
                            persist_state=KEEP) if n_new > 1 else 1
    row = run.n_prompt + step - 1                      # the row of the token chosen at this step
    typed = tok.decode(run.ids[:run.n_prompt], skip_special=True)
    st.markdown(written(typed, continuation(tok, run.ids[:row + 1], run.n_prompt)))      # nothing after this step
    end = _(" (stopped at [EOS])") if run.stopped_at_eos and step == n_new else ""
    later = _("; {n} more after this step (next ▶)").format(n=n_new - step) if step < n_new else ""
    st.caption(ngettext("Step {step} of {n}: {step} new token in bold{end}{later}",
                        "Step {step} of {n}: {step} new tokens in bold{end}{later}", step).format(
        step=step, n=n_new, end=end, later=later)
        + _(" · computed with a key/value cache; against a full recompute the largest difference is {logits} in the "
            "logits and {weights} in the attention weights.").format(logits=plain(gen.logits_gap),
                                                                      weights=plain(gen.weights_gap)))
    how = _(STRATEGIES[strategy]) + (_(", k = {k}, T = {t}, seed {seed}").format(k=k, t=f"{temp_g:g}", seed=seed)
                                     if strategy != "greedy" else "")
    c1, c2 = st.columns([3, 2])
    with c2:
        top = run.top_ids[step - 1]
        _export.chart(plot_next_token_bars([visible(tok.piece(i)) for i in top], run.top_probs[step - 1],
                                           chosen=tokens[row], title=_("Step {step}: the choices").format(step=step)),
                      key="gen_choices", name=(gpt, f"step{step}", "choices"),
                      caption=caption_line(gpt, how, text=prompt))
    with c1:
        _url.stale_link("gen_layer", [layer_label(i) for i in range(L)], _("layer"), layer_label(L - 1))
        _url.stale_link("gen_head", [shown_head(h) for h in (MEAN, *range(H))], _("head"), _(MEAN))
        _url.as_option("gen_head", (MEAN, *range(H)), [shown_head(h) for h in (MEAN, *range(H))])
        lc, hc = st.columns(2)
        layer = lc.selectbox(_("Layer"), range(L), index=L - 1, key="gen_layer", format_func=layer_label, bind=BIND,
                             persist_state=KEEP)
        head = hc.selectbox(_("Head"), [MEAN, *range(H)], key="gen_head", bind=BIND, persist_state=KEEP,
                            format_func=shown_head)
        mean = head == MEAN
        w = run.weights[layer].mean(0) if mean else run.weights[layer, head]
        shown = f"{layer_label(layer)}, {_(MEAN)}" if mean else head_label(layer, head)
        stem = (gpt, f"{layer_label(layer)}mean" if mean else file_label(layer, head))
        about = caption_line(gpt, shown, how, text=prompt)
        _export.chart(plot_causal_growth(w, tokens, upto=row, n_prompt=run.n_prompt,
                                         title=_("Causal attention after feeding “{token}” ({head})").format(
                                             token=esc(tokens[row]), head=shown)),
                      key="gen_growth", main=True, name=(*stem, f"step{step}", "causal_attention"), caption=about)
        future = np.triu(np.ones_like(w, dtype=bool), 1)
        st.caption(_("Rows appear one per fed token (red box: the newest). Right of the red staircase is the future: "
                     "largest weight there, over all layers and heads: {largest}.").format(
            largest=plain(run.weights[..., future].max())))
    _export.chart(plot_step_probs(tokens[run.n_prompt:row + 1], run.chosen_prob[:step],
                                  title=_("Probability of each token generated so far when it was chosen")),
                  key="gen_step_probs", name=(gpt, f"step{step}", "chosen_probabilities"),
                  caption=caption_line(gpt, how, text=prompt))

    def frame(i: int):
        """Generation step i + 1: the causal attention after feeding that step's token."""
        r = run.n_prompt + i
        return plot_causal_growth(w, tokens, upto=r, n_prompt=run.n_prompt,
                                  title=_("Step {step} of {n}: after feeding “{token}” ({head})").format(
                                      step=i + 1, n=n_new, token=esc(tokens[r]), head=shown))
    _export.gif(frame, n_new, name=(*stem, "generation", f"{n_new}tokens"), caption=about, key="gen",
                signature=(stem, signature, language()), what=_("generated token"))


def beams(gpt, dev, tok, prompt_ids, prompt):
    for key, lo, hi, what, start in (("beam_width", 1, 8, _("beam width"), 3), ("beam_len", 1, 16, _("length"), 8),
                                     ("beam_alpha", 0.0, 2.0, _("length penalty"), 0.0)):
        _url.stale_number(key, lo, hi, what, start)
    c1, c2, c3 = st.columns(3)
    width = c1.slider(_("Beam width"), 1, 8, 3, key="beam_width", bind=BIND, persist_state=KEEP)
    beam_len = c2.slider(_("Length (new tokens)"), 1, 16, 8, key="beam_len", bind=BIND, persist_state=KEEP)
    alpha = c3.slider(_("Length penalty α"), 0.0, 2.0, 0.0, 0.1, key="beam_alpha", bind=BIND, persist_state=KEEP,
                      help=_("Final ranking by Σ log p / n^α; α = 0 keeps the plain sum."))
    try:
        beam = _runs.gpt_beam(gpt, dev, prompt_ids, width, beam_len, EOS, alpha)
    except GenerationError as e:
        st.error(str(e))
        return
    tree, greedy_ids, greedy_lp, n_prompt = beam.tree, beam.greedy_ids, beam.greedy_logprob, len(prompt_ids)
    path, n = [], tree.beams[0]["node"]
    while n >= 0:
        path.append(n)
        n = tree.nodes[n].parent
    labels = ["…" + visible(tok.decode(prompt_ids[-4:], skip_special=True)[-24:])]
    labels += [visible(tok.piece(nd.token_id)) for nd in tree.nodes[1:]]
    ended = any(nd.status == "finished" for nd in tree.nodes)
    legend = _("grey = pruned, green = ended with [EOS]") if ended else \
        _("grey = pruned; no candidate ended with [EOS]")
    _export.chart(plot_beam_tree([nd.step for nd in tree.nodes], [nd.parent for nd in tree.nodes], labels,
                                 [nd.logprob for nd in tree.nodes], [nd.score for nd in tree.nodes],
                                 [nd.status for nd in tree.nodes], best_path=path,
                                 title=_("Beam tree: width {width}; {legend}").format(width=width, legend=legend)),
                  key="beam_tree", main=True, name=(gpt, "beam_tree", f"width{width}", f"{beam_len}tokens"),
                  caption=caption_line(gpt, _("width {width}").format(width=width), f"α = {alpha:g}", text=prompt))
    cols = [_("rank"), _("continuation"), _("Σ log p"), _("score / n^α"), _("ended with [EOS]")]
    yes, no = _("yes"), _("no")
    rows = [dict(zip(cols, (str(i + 1), continuation(tok, h["ids"], n_prompt), round(h["score"], 4),
                            round(h["norm_score"], 4), yes if h["finished"] else no)))
            for i, h in enumerate(tree.beams)]
    n_greedy = max(len(greedy_ids) - n_prompt, 1)            # the same ranking score as the beams': Σ log p / n^α
    rows.append(dict(zip(cols, (_(STRATEGIES["greedy"]), continuation(tok, greedy_ids, n_prompt), round(greedy_lp, 4),
                                round(greedy_lp / n_greedy ** alpha, 4), yes if greedy_ids[-1] == EOS else no))))
    st.dataframe(rows, hide_index=True, key="beam_table")
    st.caption(_("Greedy takes the best piece at each step; beam search keeps the best few partial continuations "
                 "and can find a likelier whole sequence."))


TEXTBOOK_FILL = "The train pulled into the station."     # textbook 12.6.1: "The <mask> pulled into the station."


def textbook_example(name: str, dev: str, tok):
    """What the shipped encoder makes of the textbook's own masked example, computed: its first choices for the
    hidden "train" and the rank it gives "train"."""
    words = list(encode_with_masks(tok, TEXTBOOK_FILL).words)
    fill = _runs.encoder_fill(name, dev, TEXTBOOK_FILL, (words.index("train"),), 5)
    top = joined(f"“{visible(p.strip())}”" for p in fill.top_pieces[0][:3])
    st.caption(_("The textbook's own example (12.6.1), “The [MASK] pulled into the station.”: this encoder's first "
                 "choices are {top}, and it ranks “train” {rank} (p = {p}). A 4-layer encoder trained on about 25 "
                 "million pieces of glosses and fortunes does not reach what BERT's size and data give.").format(
        top=top, rank=int(fill.original_rank[0]), p=f"{float(fill.original_prob[0]):.4f}"))


def fill_in(dev):
    name = _resources.FILL_MODEL
    try:
        _model, enc_meta = _resources.load_model(name, dev)
    except CheckpointError as e:
        st.warning(_("The masked-LM encoder `{name}` is not available ({why}). Train it with `{command}`.").format(
            name=name, why=md(e), command=checkpoints.retrain_hint(name)))
        return
    tok = _resources.load_tokenizer(name)
    text = _resources.clip_text(st.text_input(_("Text (type [MASK] or <mask> anywhere, or pick words below)"),
                                              DEFAULT_FILL, key="fill_text", bind=_url.text_bind("fill_text"),
                                              persist_state=KEEP), MAX_FILL_CHARS)
    _url.long_text_note("fill_text")
    words = encode_with_masks(tok, text)
    labels = _url.word_labels(words.words)         # picked by word ("the (2)"), so a link survives a new tokenizer
    _url.stale_picks("fill_words", labels, _("the words"))
    picked = st.multiselect(_("Words to hide"), labels, key="fill_words", bind=BIND, persist_state=KEEP,
                            placeholder=_("Pick words to hide"),
                            help=_("Each piece of a hidden word becomes one [MASK]: a word of 3 pieces shows the "
                                   "model 3 masks, so it knows the hidden word's length in pieces. A word seen "
                                   "again is numbered: “the (2)”."))
    _url.stale_number("fill_k", 3, 15, _("predictions per masked piece"), 8)
    top_k = st.slider(_("Predictions per masked piece"), 3, 15, 8, key="fill_k", bind=BIND, persist_state=KEEP)
    try:
        fill = _runs.encoder_fill(name, dev, text, tuple(labels.index(p) for p in picked if p in labels), top_k)
    except FillMaskError as e:
        st.error(str(e))
        return
    c = enc_meta["config"]
    st.caption(_("Encoder `{name}` ({layers} layers × {heads} heads, reads {context} pieces): its masked-LM head "
                 "reads the context on both sides of each [MASK]. A hidden word of several pieces becomes that many "
                 "[MASK] tokens, one prediction each. Special tokens are never proposed.").format(
        name=name, layers=c["n_layers"], heads=c["n_heads"], context=c["max_len"]))
    base, large = published.BERT_BASE, published.BERT_LARGE
    st.caption(_("The same objective trained BERT (textbook 12.6): BERT-base has L = {bl} layers, H = {bh} and "
                 "A = {ba} heads, {bp} parameters; BERT-large L = {ll}, H = {lh}, A = {la}, {lp}. This encoder: "
                 "L = {L}, H = {H}, A = {A}.").format(
        bl=base.layers, bh=base.d_model, ba=base.heads, bp=spoken(base.params),
        ll=large.layers, lh=large.d_model, la=large.heads, lp=spoken(large.params),
        L=c["n_layers"], H=c["d_model"], A=c["n_heads"]))
    textbook_example(name, dev, tok)
    st.markdown(_("Input: {pieces}").format(pieces=" ".join(code(visible(t)) for t in fill.tokens)))
    mt, tokens = fill.text, [visible(t) for t in fill.tokens]
    heads = [head_label(i, j) for i in range(fill.weights.shape[0]) for j in range(fill.weights.shape[1])]
    for m, pos in enumerate(mt.masked[:MAX_FILL_SHOWN]):
        original = mt.original_ids[m]
        if original < 0:
            about = _("typed mask")
        else:
            w = mt.hidden_word[m]
            part = [k for k, hw in enumerate(mt.hidden_word) if hw == w]
            whole = _("the word “{word}”").format(word=mt.words[w]) if len(part) == 1 else \
                _("piece {i} of {n} of the word “{word}”").format(i=part.index(m) + 1, n=len(part), word=mt.words[w])
            about = _("hides “{piece}”, {whole}: p = {p}, rank {rank:,}").format(
                piece=visible(tok.piece(original)), whole=whole, p=prob(fill.original_prob[m]),
                rank=fill.original_rank[m])
        st.markdown(f"**[MASK] ·{pos}** · {md(about)}")
        a, b = st.columns([2, 3])
        chosen = visible(tok.piece(original)) if original >= 0 else None
        about = caption_line(name, f"[MASK] ·{pos}", text=text)
        _export.chart(plot_next_token_bars([visible(p) for p in fill.top_pieces[m]], fill.top_probs[m],
                                           chosen=chosen, y_title=_("filler")), key=f"fill_bars_{m}", where=a,
                      name=(name, f"mask{pos}", "fillers"), title=_("Fillers for [MASK] ·{pos}").format(pos=pos),
                      caption=about)
        rows = fill.weights[:, :, pos].reshape(-1, len(tokens))                  # (L·H, N)
        _export.chart(plot_heatmap(rows, x_labels=tokens, y_labels=heads, x_title=_("key"),
                                   y_title=_("layer, head"), value_name=_("weight"),
                                   title=_("Where [MASK] ·{pos} attends, every layer and head").format(pos=pos)),
                      key=f"fill_attn_{m}", where=b, name=(name, f"mask{pos}", "attention"), caption=about)
    if len(mt.masked) > MAX_FILL_SHOWN:
        st.caption(_("{n} masked pieces; the first {shown} are drawn, the rest listed.").format(
            n=len(mt.masked), shown=MAX_FILL_SHOWN))
        position, best = _("position"), _("best filler")
        st.dataframe([{position: pos, best: visible(fill.top_pieces[m][0]), "p": round(float(fill.top_probs[m, 0]), 4)}
                      for m, pos in enumerate(mt.masked) if m >= MAX_FILL_SHOWN], hide_index=True, key="fill_rest")


def objectives(gpt, dev, tok):
    st.markdown(_("The encoder learns by filling in a few hidden pieces (a loss term only where a piece is masked), "
                  "the decoder by predicting **every** next piece (a loss term everywhere), which is only honest "
                  "because the causal mask hides the answer."))
    sentence = _resources.clip_text(st.text_input(_("Sentence"), DEFAULT_SENTENCE, key="obj_text",
                                                  bind=_url.text_bind("obj_text"), persist_state=KEEP),
                                    MAX_SENTENCE_CHARS)
    _url.long_text_note("obj_text")
    encoder = _resources.FILL_MODEL
    try:                                              # a broken encoder leaves the decoder's row
        shared = (encoder in checkpoints.shipped()
                  and _resources.load_model(encoder, dev)[1]["tokenizer"] == checkpoints.read_meta(gpt)["tokenizer"])
    except CheckpointError as e:
        st.warning(f"The masked-LM encoder `{encoder}` is not available ({md(e)}).")
        shared = False
    gpt_len = _resources.load_model(gpt, dev)[0].config.max_len - 1                      # after [BOS]
    limit = min(gpt_len, checkpoints.read_meta(encoder)["config"]["max_len"] - 2) if shared else gpt_len
    pieces = text_input.encode(tok, sentence, "plain")
    ids, shown = pieces.ids, [visible(t) for t in pieces.tokens]
    if len(ids) > limit:
        st.warning(_("The sentence is {n} pieces long; only the first {limit} are used.").format(n=len(ids),
                                                                                                  limit=limit))
        ids, shown = ids[:limit], shown[:limit]
    if not ids:
        st.info(_("Type a sentence."))
        return
    labels = _url.word_labels(shown)                  # pieces by what they read ("␣the (2)"), never by position
    _url.stale_picks("obj_masked", labels, _("the pieces"))
    if st.session_state.get("obj_seen") != tuple(ids):                 # a new sentence: BERT's 15 % afresh
        st.session_state.obj_seen = tuple(ids)                         # (a link's own picks win on its first run)
        st.session_state.obj_masked = [labels[i] for i in choose_masked(len(ids), 0.15, np.random.default_rng(0))]
    picked = st.multiselect(_("Masked for the encoder (about 15 % of the pieces, as in BERT)"), labels,
                            key="obj_masked", bind=BIND, persist_state=KEEP, placeholder=_("Pick pieces to mask"),
                            help=_("A piece seen again is numbered: “␣the (2)”; ␣ is a space."))
    masked = tuple(sorted(labels.index(p) for p in picked if p in labels))
    losses = _runs.objective_losses(gpt, dev, tuple(ids), masked, encoder if shared else None)
    mlm, clm, dec_w = losses.mlm, losses.clm, losses.weights
    _export.chart(plot_objectives(shown, mlm, clm, title=_("Loss terms per piece (−log p of the true piece)"),
                                  unit=_("piece")),
                  key="obj_losses", main=True, name=(encoder, gpt, "objectives"),
                  caption=caption_line(encoder, gpt, text=sentence))
    m1, m2, m3 = st.columns(3)
    m1.metric(_("Encoder loss terms"), _("{k} of {n}").format(k=len(masked), n=len(ids)))
    m2.metric(_("Decoder loss terms"), _("{k} of {n}").format(k=len(ids), n=len(ids)))
    m3.metric(_("Decoder mean loss (nats)"), f"{float(np.mean(clm)):.3f}")
    st.caption(_("Encoder `{encoder}`, decoder `{decoder}`, the same BPE pieces.").format(encoder=encoder, decoder=gpt)
               if shared else
               _("The encoder `{encoder}` is not shipped with the decoder's tokenizer, so its row stays empty.").format(
                   encoder=encoder))
    dec_tokens = ["[BOS]", *shown]
    future = np.triu(np.ones(dec_w.shape[-2:], dtype=bool), 1)
    _export.chart(plot_heatmap(dec_w[0].mean(0), x_labels=dec_tokens, y_labels=dec_tokens, x_title=_("key"),
                               y_title=_("query"), value_name=_("weight"),
                               title=_("The decoder's causal attention ({layer}, mean of heads)").format(
                                   layer=layer_label(0))),
                  key="obj_mask", name=(gpt, layer_label(0), "mean", "causal_attention"),
                  caption=caption_line(gpt, f"{layer_label(0)}, {_(MEAN)}", text=sentence))
    st.caption(_("Weight on future pieces, largest over all {layers} layers and {heads} heads: {largest}. Position i "
                 "predicts piece i + 1 without seeing it.").format(layers=dec_w.shape[0], heads=dec_w.shape[1],
                                                                   largest=plain(dec_w[..., future].max())))
