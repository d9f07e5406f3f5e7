"""Decoder & generation: how a GPT-style model writes text one token at a time (textbook 12.7), on any typed text.

Teaches: the next-token distribution and temperature; greedy choice, seeded top-k sampling and beam search
(with its tree); the causal attention that grows one row per generated token and puts exactly zero weight on
the future; masked-LM fill-in with the encoder (context on both sides); and the two pre-training objectives
side by side (which positions give a loss term). Both models read byte-level BPE pieces, so no text is unknown.
The tab "Learning from the prompt" (app_pages/views/incontext.py): a small decoder copying a span it saw earlier in
its prompt; the last, "Logit lens" (app_pages/views/logit_lens.py): what each layer would predict next. The other
tabs live beside this file: generation_steps, generation_beam, generation_fill, generation_objectives, chain_rule.
"""
import numpy as np
import streamlit as st

from app_pages import _export, _present, _resources, _runs, _url
from app_pages._markup import esc, md, visible
from app_pages.views import (
    chain_rule,
    generation_beam,
    generation_fill,
    generation_objectives,
    generation_steps,
    incontext,
    logit_lens,
)
from app_pages.views.generation_text import code
from i18n import N_, _, ngettext
from model.data import text_input
from model.tasks.generation import GenerationError
from viz.generation import plot_next_token_bars
from viz.slide import caption_line

MAX_PROMPT_CHARS = 2_000
PIECES_LISTED = 40             # prompt pieces listed under the prompt
DEFAULT_PROMPT = "The restaurant refused to serve me a"
TABS = [N_("Next token"), N_("Generate step by step"), N_("Beam search"), N_("Fill-in (encoder)"),
        N_("Objectives side by side"), N_("Sentence probability"), N_("Learning from the prompt"),
        N_("Logit lens")]
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page
CORPORA = {"model.data.real_text": N_("real English and Chinese text: WordNet's glosses and examples, the World "
                                      "English Bible, the Jargon File, the Debian handbook, English fortune "
                                      "cookies, Chinese fortunes and poems (docs/data-card.md)"),
           "model.data.zh_text": N_("modern Chinese: Debian's Simplified-Chinese documentation and shoppers' product "
                                    "reviews (docs/data-card-zh.md)")}
POSITIONS = {"learned": N_("learned"), "sinusoidal": N_("sinusoidal"), "relative": N_("relative"),
             "rope": "RoPE", "alibi": "ALiBi", "none": N_("none")}       # config pos_encoding -> its name in text


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
    kn4 = m.get("kn4_perplexity_heldout_real")
    if ppl is not None and kn4 is not None:
        out += _(" A Kneser–Ney 4-gram counted on the same text scores {kn4:.1f}: {verdict}.").format(
            kn4=kn4, verdict=_("the model beats it") if ppl < kn4 else _("the counts still win"))
    return out


def render():
    st.title(_("Decoder & generation"))
    _present.slot()                    # presenting: the main figure (the open tab's) comes first
    st.caption(_("A GPT-style decoder is **autoregressive** (textbook 12.7.1): it predicts the next piece of text from "
                 "the pieces on its left only; fed its own output back, it writes. Type anything, English or Chinese: "
                 "it is read in byte-level BPE pieces, so no word is unknown."))
    draw_tabs(_resources.GPT_MODEL, _resources.device())


def prompt_box() -> str:
    """The prompt every prompt tab reads (clipped)."""
    prompt = _resources.clip_text(st.text_input(_("Prompt"), DEFAULT_PROMPT, key="gen_prompt",
                                                bind=_url.text_bind("gen_prompt"), persist_state=KEEP,
                                                help=_("Any text; the model continues it piece by piece.")),
                                  MAX_PROMPT_CHARS)
    _url.long_text_note("gen_prompt")
    return prompt


def prompt_pieces(gpt: str, tok, prompt: str) -> tuple[int, ...]:
    """The prompt's ids with [BOS], its pieces listed in a caption."""
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
    return prompt_ids


def prompt_tab(gpt: str):
    """The prompt box and the decoder that reads it (a Chinese one on mostly Chinese text), with its description,
    drawn inside a tab that reads the prompt (the fill-in, objectives, chain-rule and in-context tabs read their
    own texts: no unrelated box above their figures). Returns (model name, model, tokenizer, prompt, prompt ids
    with [BOS])."""
    prompt = prompt_box()
    gpt = _resources.model_for_text(gpt, prompt)
    model, meta = _resources.model_or_stop(gpt)
    tok = _resources.load_tokenizer(gpt)
    st.caption(describe(gpt, meta))
    return gpt, model, tok, prompt, prompt_pieces(gpt, tok, prompt)


def draw_tabs(gpt: str, dev: str):
    """The page's tabs; lazy: only the open one runs its model (its picks survive in the session)."""
    # lazy tabs: only the open one runs its model (its picks survive in the session); the open tab is in the URL
    labels = [_(t) for t in TABS]                       # the URL holds the shown (translated) tab label
    _url.stale_link("gen_tab", labels, _("the tab"), labels[0])
    tab_next, tab_gen, tab_beam, tab_fill, tab_obj, tab_chain, tab_ic, tab_lens = st.tabs(
        labels, key="gen_tab", on_change="rerun", bind=BIND)
    if tab_next.open:
        with tab_next:
            name, _model, tok, prompt, prompt_ids = prompt_tab(gpt)
            next_token(name, dev, tok, prompt, prompt_ids)
    if tab_gen.open:
        with tab_gen:
            name, model, tok, prompt, prompt_ids = prompt_tab(gpt)
            generation_steps.step_by_step(name, dev, tok, model, prompt_ids, prompt)
    if tab_beam.open:
        with tab_beam:
            name, _model, tok, prompt, prompt_ids = prompt_tab(gpt)
            generation_beam.beams(name, dev, tok, prompt_ids, prompt)
    if tab_fill.open:
        with tab_fill:
            generation_fill.fill_in(dev)
    if tab_obj.open:
        with tab_obj:
            _resources.model_or_stop(gpt)
            generation_objectives.objectives(gpt, dev, _resources.load_tokenizer(gpt))
    if tab_chain.open:
        with tab_chain:
            chain_rule.section(gpt, dev)
    if tab_ic.open:
        with tab_ic:
            incontext.section(dev)
    if tab_lens.open:
        with tab_lens:
            name, _model, _tok, prompt, _ids = prompt_tab(gpt)
            logit_lens.section(name, dev, prompt)


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
