"""Cached runs for looking inside a head (the explorer's ablation, why-this-weight, value-norm, queries-and-keys
tabs and the coreference page's ablation table): (name, device, inputs) -> plain numpy results. Like
app_pages/_runs.py, runs are data (bounded caches) and the models they read are resources."""
from dataclasses import dataclass

import numpy as np
import streamlit as st

from app_pages._resources import load_model, load_tokenizer, text_rule

RUNS_KEPT = 8


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def qkv_run(name: str, device: str, text: str):
    """TextRun with q, k, v (L, H, N, D) and scores (L, H, N, N) besides the weights (no logits): the text as the
    explorer reads it (cut at the model's max_len)."""
    from model.tasks.attention_run import run_text
    model, _ = load_model(name, device)
    return run_text(model, load_tokenizer(name), text, text_rule(name), qkv=True, logits=False)


def _base(name: str, device: str, text: str, mode: str):
    """The run an ablation starts from: the explorer's own (weights and hidden states) for zero ablation, the one
    with q, k, v for mean ablation (a head's mean output needs its values)."""
    if mode == "zero":
        from app_pages._runs import explorer_run
        return explorer_run(name, device, text)
    return qkv_run(name, device, text)


@dataclass(frozen=True)
class AblationView:
    """One text with `heads` removed. weights: (L, H, N, N) after; change: (L, H) mean total-variation change of
    each head's rows; kl: (N,) KL(before ‖ after) of the output at each token (nats); flipped: (N,) the top output
    token changed; top: the best TOP output tokens at every position before and after (TopPredictions with
    (N, 2, k) ids and probs, (N, 2) cross); answers_before, answers_after:
    {pronoun word: answer word} of a model with a pronoun cloze head (empty otherwise). A model without an output
    layer (a sentence encoder) has kl, flipped and top None and sentence_cosine: the cosine between its sentence
    vectors (the mean of the final states) before and after."""
    heads: tuple[tuple[int, int], ...]
    mode: str
    weights: np.ndarray
    change: np.ndarray
    kl: np.ndarray
    flipped: np.ndarray
    top: object
    answers_before: dict
    answers_after: dict
    sentence_cosine: float | None = None


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def ablation(name: str, device: str, text: str, heads: tuple[tuple[int, int], ...], mode: str) -> AblationView:
    """The text read with and without `heads` (zero or mean ablation; the mean over this text's tokens)."""
    from model.analysis import ablation as abl
    from model.analysis.head_stats import antecedent_candidates
    from model.data.course_world import PRONOUNS
    model, _ = load_model(name, device)
    run = _base(name, device, text, mode)
    means = abl.head_means(run.weights, run.v) if mode == "mean" else None
    before = abl.final_state(model, run.hidden[-1])
    after = abl.run_ablated(model, run.ids, heads, mode, means)
    if model.lm_head is None:
        a, b = before.astype(np.float64).mean(0), after.final.astype(np.float64).mean(0)
        cosine = float(a @ b / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-12))
        return AblationView(tuple(heads), mode, after.weights, abl.attention_change(run.weights, after.weights),
                            None, None, None, {}, {}, cosine)
    kl, flipped, top = abl.output_change(model, before, after.final)
    answers = ({}, {})
    if hasattr(model, "cloze_logits"):
        words = list(run.word_texts)
        cands = {w: antecedent_candidates(words, w) for w, t in enumerate(words) if t.strip().lower() in PRONOUNS}
        answers = tuple(abl.cloze_answers(model, f, run.ids, run.words, words, cands) for f in (before, after.final))
    return AblationView(tuple(heads), mode, after.weights, abl.attention_change(run.weights, after.weights),
                        kl, flipped, top, *answers)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def masked_word(name: str, device: str, text: str, word: int, heads: tuple[tuple[int, int], ...], mode: str):
    """An encoder's top fillers for word `word` of the text hidden behind [MASK] (its first piece), with and
    without `heads`: model.analysis.ablation.TopPredictions, or None when that word is a special token."""
    from model.analysis import ablation as abl
    from model.data import bpe
    model, _ = load_model(name, device)
    run = _base(name, device, text, mode)
    pieces = run.words[word]
    if any(run.ids[k] < len(bpe.SPECIALS) for k in pieces):
        return None
    ids = abl.masked_ids(run.ids, pieces)
    means = abl.head_means(run.weights, run.v) if mode == "mean" else None
    before = abl.run_ablated(model, ids, weights=False)
    after = abl.run_ablated(model, ids, heads, mode, means, weights=False)
    p, q = (abl.probabilities(model, r.final, [pieces[0]])[0] for r in (before, after))
    return abl.top_predictions(p, q)


@dataclass(frozen=True)
class NormView:
    """Kobayashi et al.'s norms of one text. norms: (L, H, N) ‖f_h(x_j)‖; layer: (L, N, N) ‖Σ_h α f‖; share:
    (L, N) mixing share; rollout_raw, rollout_norm: (L, N, N)."""
    norms: np.ndarray
    layer: np.ndarray
    share: np.ndarray
    rollout_raw: np.ndarray
    rollout_norm: np.ndarray


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def value_norms(name: str, device: str, text: str) -> NormView:
    from model.analysis import value_norms as vn
    from model.analysis.attention_views import rollout
    model, _ = load_model(name, device)
    run = qkv_run(name, device, text)
    f = vn.transformed_values(run.v, vn.output_projections(model))
    layer = vn.layer_norms(run.weights, f)
    residual = np.linalg.norm(run.hidden[:-1], axis=-1)                         # (L, N) ‖x_i‖ entering each layer
    return NormView(vn.value_norms(f), layer, vn.mixing_share(layer, residual), rollout(run.weights),
                    vn.norm_rollout(layer, residual))


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Reading many sentences… · 正在读取多个句子…")
def sentences_qk(name: str, device: str, layer: int, head: int, n: int):
    """model.analysis.qk_projection.SentenceQK of one head on n held-out course-world sentences."""
    from model.analysis.qk_projection import sentences_qk as run
    from model.data import course_world as corpus
    model, _ = load_model(name, device)
    texts = [s.text for s in corpus.eval_samples("heldout_pairs", (n + 1) // 2)][:n]
    return run(model, load_tokenizer(name), text_rule(name), texts, layer, head)


@st.cache_data(max_entries=4, show_spinner="Removing each head in turn on held-out sentences… · "
                                           "正在留出的句子上逐个移除每个头…")
def coref_head_effects(name: str, device: str, mode: str):
    """model.analysis.ablation_eval.HeadEffects of the coreference encoder on the held-out pairs of
    `python -m model.evaluate` (its eval_pairs pairs), one head removed at a time."""
    from model.analysis.ablation_eval import head_effects
    from model.data import course_world as corpus
    from model.training.recipes.coref_encoder import RECIPE
    model, meta = load_model(name, device)
    samples = corpus.eval_samples("heldout_pairs", RECIPE["eval_pairs"])
    return head_effects(model, load_tokenizer(name), samples, tuple(meta["coref_head"]), mode)
