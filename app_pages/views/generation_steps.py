"""The decoder page's "Generate step by step" tab: greedy or seeded top-k generation from the prompt, stepped
through one token at a time with the choices at each step and the causal attention growing one row per token."""
import numpy as np
import streamlit as st

from app_pages import _export, _runs, _url
from app_pages._markup import esc, visible
from app_pages._numbers import plain
from app_pages.views.generation_text import MEAN, continuation, shown_head, written
from i18n import N_, _, language, ngettext
from labels import file_label, head_label, layer_label
from model.data.bpe import EOS
from model.tasks.generation import MAX_NEW_TOKENS, GenerationError
from viz.generation import plot_causal_growth, plot_next_token_bars, plot_step_probs
from viz.slide import caption_line

STRATEGIES = {"greedy": N_("greedy"), "top_k": N_("top-k sampling")}
BIND, KEEP = _url.BIND, _url.KEEP        # every input is in the URL and survives a visit to another page


def step_by_step(gpt, dev, tok, model, prompt_ids, prompt):
    L, H = model.config.n_layers, model.config.n_heads
    strategy, k, temp_g, seed, max_new = strategy_controls()
    try:
        gen = _runs.gpt_generate(gpt, dev, prompt_ids, max_new, strategy, k, temp_g, seed, EOS)
    except GenerationError as e:
        st.error(str(e))
        return
    run = gen.run
    tokens = [visible(tok.piece(i)) for i in run.ids]
    n_new = len(run.new_ids)
    signature = (prompt_ids, max_new, strategy, k, temp_g, seed)
    step = stepper(signature, n_new)
    row = run.n_prompt + step - 1                      # the row of the token chosen at this step
    step_text(tok, gen, step, row)
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
        growth = causal_growth(gpt, run, tokens, (L, H), step, how, prompt)
    _export.chart(plot_step_probs(tokens[run.n_prompt:row + 1], run.chosen_prob[:step], first=run.n_prompt,
                                  title=_("Probability of each token generated so far when it was chosen")),
                  key="gen_step_probs", name=(gpt, f"step{step}", "chosen_probabilities"),
                  caption=caption_line(gpt, how, text=prompt))
    growth_gif(run, tokens, growth, signature)


def strategy_controls() -> tuple[str, int, float, int, int]:
    """The strategy and its sampling settings in one row. Returns (strategy, k, temperature, seed, new tokens)."""
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
    return strategy, k, temp_g, seed, max_new


def stepper(signature: tuple, n_new: int) -> int:
    """◀ back, next ▶ and a step slider over the generated tokens; a new run starts at its end. Returns the step,
    1 … n_new."""
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
    return step


def step_text(tok, gen, step: int, row: int):
    """The prompt with the tokens written up to this step in bold, and how far the generation has come."""
    run, n_new = gen.run, len(gen.run.new_ids)
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


def causal_growth(gpt: str, run, tokens: list[str], shape: tuple[int, int], step: int, how: str,
                  prompt: str) -> dict:
    """A layer and head (or the mean of the layer's heads) picked, and their causal attention after this step's
    token, the future shown empty. Returns what the animation of every step reuses: w (T, T), shown, stem, about."""
    L, H = shape
    row = run.n_prompt + step - 1
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
    return dict(w=w, shown=shown, stem=stem, about=about)


def growth_gif(run, tokens: list[str], growth: dict, signature: tuple):
    """The causal attention of every generation step as an animated GIF, made on demand."""
    w, shown, stem, about = growth["w"], growth["shown"], growth["stem"], growth["about"]
    n_new = len(run.new_ids)

    def frame(i: int):
        """Generation step i + 1: the causal attention after feeding that step's token."""
        r = run.n_prompt + i
        return plot_causal_growth(w, tokens, upto=r, n_prompt=run.n_prompt,
                                  title=_("Step {step} of {n}: after feeding “{token}” ({head})").format(
                                      step=i + 1, n=n_new, token=esc(tokens[r]), head=shown))
    _export.gif(frame, n_new, name=(*stem, "generation", f"{n_new}tokens"), caption=about, key="gen",
                signature=(stem, signature, language()), what=_("generated token"))
