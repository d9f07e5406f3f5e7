"""Decoder & generation: how a GPT-style model writes text one token at a time (textbook 12.7).

Teaches: the next-token distribution and temperature; greedy choice, seeded top-k sampling and
beam search (with its tree); the causal attention that grows one row per generated token and puts
exactly zero weight on the future; masked-LM fill-in with the encoder; and the two pre-training
objectives side by side (which positions give a loss term).
"""
import numpy as np
import streamlit as st

from app_pages import _resources, _runs
from app_pages._markup import esc, md
from labels import head_label, head_only, layer_label
from model import checkpoints
from model.data import text_input
from model.data.word_tokenizer import EOS, split_words
from model.tasks.fill_mask import FillMaskError, encode_with_masks
from model.tasks.generation import MAX_NEW_TOKENS, GenerationError
from model.training.objectives import choose_masked
from viz.generation import plot_beam_tree, plot_causal_growth, plot_next_token_bars, plot_objectives, plot_step_probs
from viz.heatmap import plot_heatmap

MAX_PROMPT_CHARS = 2_000
MAX_OBJECTIVE_WORDS = 120      # the encoder reads 128 positions with [CLS] and [SEP]
DEFAULT_PROMPT = "the restaurant refused to serve me a"
DEFAULT_FILL = "The animal didn't cross the street because it was too tired."
DEFAULT_SENTENCE = "the cafe would not sell us the soup because it was too salty ."


def words_text(tokens) -> str:
    return " ".join(tokens)


def render():
    st.title("Decoder & generation")
    st.caption("A GPT-style decoder predicts the next word from the words on its left only; fed its own output "
               "back, it writes. Every number here comes from the shipped model `course_gpt` (4 layers × 4 heads, "
               "causal mask, sinusoidal positions, 512 positions), trained on the course-world corpus.")
    dev = _resources.device()
    gpt = _resources.GPT_MODEL
    model, meta = _resources.model_or_stop(gpt)
    tok = _resources.load_tokenizer(gpt)
    L, H = model.config.n_layers, model.config.n_heads

    PROMPT_HELP = ("Words of the course world (restaurants, dishes, animals, streets, trophies, suitcases…); "
                   "unknown words are read as [UNK].")
    prompt = _resources.clip_text(st.text_input("Prompt", DEFAULT_PROMPT, key="gen_prompt", help=PROMPT_HELP),
                               MAX_PROMPT_CHARS)
    enc = text_input.encode(tok, prompt, _resources.text_rule(gpt))
    if any(enc.unknown):
        unknown = sorted({t for t, u in zip(enc.tokens, enc.unknown) if u})
        st.warning("Not in the model's vocabulary (read as [UNK]): " + ", ".join(md(w) for w in unknown))
    # no word typed: an empty prompt, which each prompt tab refuses with a readable message; the tabs stay drawn
    # so that the fill-in and objectives tabs (and every pick) are not reset by an emptied prompt
    prompt_ids = tuple(enc.ids) if len(enc.ids) >= 2 else ()

    tab_next, tab_gen, tab_beam, tab_fill, tab_obj = st.tabs(
        ["Next token", "Generate step by step", "Beam search", "Fill-in (encoder)", "Objectives side by side"])

    with tab_next:
        c1, c2 = st.columns(2)
        temp = c1.slider("Temperature", 0.1, 3.0, 1.0, 0.1, key="next_temp",
                         help="softmax(logits / T): below 1 sharpens, above 1 flattens.")
        top_n = c2.slider("Tokens shown", 5, 25, 12, key="next_top")
        try:
            probs = _runs.gpt_next_probs(gpt, dev, prompt_ids, temp)
        except GenerationError as e:
            st.error(str(e))
        else:
            order = np.argsort(-probs)[:top_n]
            words = [tok.vocab[i] for i in order]
            title = f"Pr(next token | “{esc(prompt[-60:])}”), T = {temp:g}"
            st.plotly_chart(plot_next_token_bars(words, probs[order], chosen=words[0], title=title), key="next_bars")
            entropy = float(-(probs * np.log(np.clip(probs, 1e-300, None))).sum())
            m1, m2, m3 = st.columns(3)
            m1.metric("Greedy pick", words[0])
            m2.metric("Its probability", f"{probs[order[0]]:.4f}")
            m3.metric("Entropy (nats)", f"{entropy:.3f}")

    with tab_gen:
        c1, c2, c3, c4, c5 = st.columns(5)
        strategy = c1.radio("Strategy", ["greedy", "top_k"], key="gen_strategy",
                            format_func=lambda s: {"greedy": "greedy", "top_k": "top-k sampling"}[s])
        k = c2.slider("k", 1, 20, 5, key="gen_k", disabled=strategy == "greedy")
        temp_g = c3.slider("Temperature ", 0.1, 3.0, 1.0, 0.1, key="gen_temp", disabled=strategy == "greedy")
        seed = int(c4.number_input("Seed", 0, 10_000, 0, key="gen_seed", disabled=strategy == "greedy"))
        max_new = c5.slider("New tokens", 1, MAX_NEW_TOKENS, 24, key="gen_max_new")
        try:
            gen = _runs.gpt_generate(gpt, dev, prompt_ids, max_new, strategy, k, temp_g, seed, EOS)
        except GenerationError as e:
            st.error(str(e))
        else:
            run = gen.run
            tokens = [tok.vocab[i] for i in run.ids]
            n_new = len(run.new_ids)
            st.markdown(md(words_text(tokens[1:run.n_prompt])) + " **" + md(words_text(tokens[run.n_prompt:])) + "**")
            st.caption(f"{n_new} new tokens" + (" (stopped at [EOS])" if run.stopped_at_eos else "") +
                       f" · computed with a key/value cache; against a full recompute the largest difference is "
                       f"{gen.logits_gap:.1e} in the logits and {gen.weights_gap:.1e} in the attention weights.")
            signature = (prompt_ids, max_new, strategy, k, temp_g, seed)
            if st.session_state.get("gen_signature") != signature or st.session_state.get("gen_step", 0) > n_new:
                st.session_state.gen_signature, st.session_state.gen_step = signature, n_new   # a new run: show its end

            def move(d):
                st.session_state.gen_step = int(np.clip(st.session_state.gen_step + d, 1, n_new))

            b1, b2, b3 = st.columns([1, 1, 6])
            b1.button("◀ back", on_click=move, args=(-1,), key="gen_back", disabled=n_new < 2)
            b2.button("next ▶", on_click=move, args=(1,), key="gen_next", disabled=n_new < 2)
            step = b3.slider("Step", 1, max(n_new, 2), key="gen_step", disabled=n_new < 2) if n_new > 1 else 1
            row = run.n_prompt + step - 1                      # the row of the token chosen at this step
            c1, c2 = st.columns([3, 2])
            with c2:
                top = run.top_ids[step - 1]
                st.plotly_chart(plot_next_token_bars([tok.vocab[i] for i in top], run.top_probs[step - 1],
                                                     chosen=tokens[row], title=f"Step {step}: the choices"),
                                key="gen_choices")
            with c1:
                lc, hc = st.columns(2)
                layer = lc.selectbox("Layer", range(L), index=L - 1, key="gen_layer", format_func=layer_label)
                head = hc.selectbox("Head", ["mean of heads", *range(H)], key="gen_head",
                                 format_func=lambda h: h if isinstance(h, str) else head_only(h))
                mean = head == "mean of heads"
                w = run.weights[layer].mean(0) if mean else run.weights[layer, head]
                shown = f"{layer_label(layer)}, mean of heads" if mean else head_label(layer, head)
                st.plotly_chart(plot_causal_growth(w, tokens, upto=row, n_prompt=run.n_prompt,
                                                   title=f"Causal attention after feeding “{esc(tokens[row])}” "
                                                         f"({shown})"), key="gen_growth")
                future = np.triu(np.ones_like(w, dtype=bool), 1)
                st.caption(f"Rows appear one per fed token (red box: the newest). Right of the red staircase is the "
                           f"future: largest weight there, over all layers and heads: "
                           f"{float(run.weights[..., future].max()):g}.")
            st.plotly_chart(plot_step_probs(tokens[run.n_prompt:], run.chosen_prob,
                                            title="Probability of each generated token when it was chosen"),
                            key="gen_step_probs")

    with tab_beam:
        c1, c2, c3 = st.columns(3)
        width = c1.slider("Beam width", 1, 8, 3, key="beam_width")
        beam_len = c2.slider("Length (new tokens)", 1, 16, 8, key="beam_len")
        alpha = c3.slider("Length penalty α", 0.0, 2.0, 0.0, 0.1, key="beam_alpha",
                          help="Final ranking by Σ log p / n^α; α = 0 keeps the plain sum.")
        try:
            beam = _runs.gpt_beam(gpt, dev, prompt_ids, width, beam_len, EOS, alpha)
        except GenerationError as e:
            st.error(str(e))
        else:
            tree, greedy_ids, greedy_lp = beam.tree, beam.greedy_ids, beam.greedy_logprob
            best, path = tree.beams[0], []
            n = best["node"]
            while n >= 0:
                path.append(n)
                n = tree.nodes[n].parent
            labels = ["…" + words_text(tok.vocab[i] for i in prompt_ids[-3:])]
            labels += [tok.vocab[nd.token_id] for nd in tree.nodes[1:]]
            st.plotly_chart(plot_beam_tree([nd.step for nd in tree.nodes], [nd.parent for nd in tree.nodes], labels,
                                           [nd.logprob for nd in tree.nodes], [nd.score for nd in tree.nodes],
                                           [nd.status for nd in tree.nodes], best_path=path,
                                           title=f"Beam tree: width {width}; grey = pruned, green = ended with [EOS]"),
                            key="beam_tree")
            rows = [{"rank": str(i + 1), "continuation": words_text(tok.vocab[t] for t in h["ids"][len(prompt_ids):]),
                     "Σ log p": round(h["score"], 4), "score / n^α": round(h["norm_score"], 4),
                     "ended with [EOS]": h["finished"]} for i, h in enumerate(tree.beams)]
            greedy_words = words_text(tok.vocab[t] for t in greedy_ids[len(prompt_ids):])
            rows.append({"rank": "greedy", "continuation": greedy_words, "Σ log p": round(greedy_lp, 4),
                         "score / n^α": None, "ended with [EOS]": greedy_ids[-1] == EOS})
            st.dataframe(rows, hide_index=True, key="beam_table")
            st.caption("Greedy takes the best word at each step; beam search keeps the best few partial "
                       "continuations and can find a likelier whole sequence.")

    with tab_fill:
        encoders = [n for n, m in _resources.shipped_meta().items() if m["config"].get("kind") == "encoder"
                    and m.get("modality", "text") == "text"]
        name = _resources.COREF_MODEL if _resources.COREF_MODEL in encoders else (encoders[0] if encoders else None)
        if name is None:
            hint = checkpoints.retrain_hint(_resources.COREF_MODEL)
            st.warning(f"No text encoder is shipped yet. Train one with `{hint}`.")
        else:
            text = _resources.clip_text(st.text_input("Text (type [MASK] anywhere, or pick words below)", DEFAULT_FILL,
                                                   key="fill_text"), 600)
            plain = encode_with_masks(_resources.load_tokenizer(name), text, [])[1][1:-1]     # tokens, no [CLS]/[SEP]
            options = [i for i, w in enumerate(plain) if w != "[MASK]"]
            hide = st.multiselect("Words to hide", options, default=[i for i in options if plain[i] == "tired"][:1],
                                  key="fill_words", format_func=lambda i: f"{plain[i]} ·{i + 1}")
            top_k = st.slider("Predictions per masked word", 3, 15, 8, key="fill_k")
            try:
                fill = _runs.encoder_fill(name, dev, text, tuple(hide), top_k)
            except FillMaskError as e:
                st.error(str(e))
            else:
                st.caption(f"Encoder `{name}`: its masked-LM head reads context on both sides of each [MASK].")
                for m, pos in enumerate(fill.masked):
                    orig = fill.original[m]
                    known = orig is not None and not np.isnan(fill.original_prob[m])
                    head_txt = f"token ·{pos}" + (f" · hidden word “{orig}”, p = {fill.original_prob[m]:.4f}"
                                                     if known else "")
                    st.markdown(f"**[MASK] at {md(head_txt)}**")
                    a, b = st.columns([2, 3])
                    bars = plot_next_token_bars(fill.top_words[m], fill.top_probs[m], chosen=orig, y_title="filler")
                    a.plotly_chart(bars, key=f"fill_bars_{m}")
                    rows = fill.weights[:, :, pos].reshape(-1, len(fill.tokens))      # (L·H, N)
                    b.plotly_chart(plot_heatmap(rows, x_labels=fill.tokens,
                                                y_labels=[head_label(i, j) for i in range(fill.weights.shape[0])
                                                          for j in range(fill.weights.shape[1])],
                                                title=f"Where [MASK] ·{pos} attends, every layer and head",
                                                y_title="layer, head"), key=f"fill_attn_{m}")

    with tab_obj:
        st.markdown("The encoder learns by filling in a few hidden words (a loss term only where a word is masked), "
                    "the decoder by predicting **every** next word (a loss term everywhere), which is only honest "
                    "because the causal mask hides the answer.")
        sentence = _resources.clip_text(st.text_input("Sentence", DEFAULT_SENTENCE, key="obj_text"), 400)
        words = tuple(split_words(sentence))
        if len(words) > MAX_OBJECTIVE_WORDS:
            st.warning(f"The sentence has {len(words)} words; only the first {MAX_OBJECTIVE_WORDS} are used.")
            words = words[:MAX_OBJECTIVE_WORDS]
        if not words:
            st.info("Type a sentence.")
            st.stop()
        auto = choose_masked(len(words), 0.15, np.random.default_rng(0))
        masked = st.multiselect("Masked for the encoder (about 15 % as in BERT)", range(len(words)), default=auto,
                                key="obj_masked", format_func=lambda i: f"{words[i]} ·{i}")
        encoder = _resources.COREF_MODEL if _resources.COREF_MODEL in checkpoints.shipped() else None
        losses = _runs.objective_losses(gpt, dev, words, tuple(sorted(masked)), encoder)
        mlm, clm, dec_w = losses.mlm, losses.clm, losses.weights
        st.plotly_chart(plot_objectives(list(words), mlm, clm, title="Loss terms per word (−log p of the true word)"),
                        key="obj_losses")
        m1, m2, m3 = st.columns(3)
        m1.metric("Encoder loss terms", f"{len(masked)} of {len(words)}")
        m2.metric("Decoder loss terms", f"{len(words)} of {len(words)}")
        m3.metric("Decoder mean loss (nats)", f"{float(np.mean(clm)):.3f}")
        if encoder is None:
            st.caption("No encoder is shipped yet, so its row stays empty.")
        dec_tokens = ["[BOS]", *words]
        future = np.triu(np.ones(dec_w.shape[-2:], dtype=bool), 1)
        st.plotly_chart(plot_heatmap(dec_w[0].mean(0), x_labels=dec_tokens, y_labels=dec_tokens,
                                     title=f"The decoder's causal attention ({layer_label(0)}, mean of heads)"),
                        key="obj_mask")
        st.caption(f"Weight on future tokens, largest over all {dec_w.shape[0]} layers and {dec_w.shape[1]} heads: "
                   f"{float(dec_w[..., future].max()):g}. Position i predicts word i + 1 without seeing it.")
