"""Cached runs for looking inside a head (the explorer's ablation, why-this-weight, value-norm, queries-and-keys
tabs and the coreference page's ablation table): (name, device, inputs) -> plain numpy results, each a call of
model code on a model's handle. Like app_pages/_runs.py, runs are data (bounded caches) and the models they read
are resources."""
import streamlit as st

from app_pages._cache_sizes import MEASURES_KEPT, RUNS_KEPT
from app_pages._resources import loaded
from model.tasks.results import TextRun


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def qkv_run(name: str, device: str, text: str) -> TextRun:
    """TextRun with q, k, v (L, H, N, D) and scores (L, H, N, N) besides the weights (no logits): the text as the
    explorer reads it (cut at the model's max_len)."""
    return loaded(name, device).run(text, qkv=True, logits=False)


def _base(name: str, device: str, text: str, mode: str) -> TextRun:
    """The run an ablation starts from: the explorer's own (weights and hidden states) for zero ablation, the one
    with q, k, v for mean ablation (a head's mean output needs its values)."""
    if mode == "zero":
        from app_pages._runs import explorer_run
        return explorer_run(name, device, text)
    return qkv_run(name, device, text)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def ablation(name: str, device: str, text: str, heads: tuple[tuple[int, int], ...], mode: str):
    """model.analysis.ablation_view.AblationView: the text read with and without `heads` (zero or mean ablation;
    the mean over this text's tokens); a coreference encoder's pronoun answers compared too."""
    from model.analysis.ablation_view import ablation_view
    h = loaded(name, device)
    return ablation_view(h.model, _base(name, device, text, mode), heads, mode, cloze=h.kind == "coref_encoder")


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def masked_word(name: str, device: str, text: str, word: int, heads: tuple[tuple[int, int], ...], mode: str):
    """An encoder's top fillers for word `word` of the text hidden behind [MASK] (its first piece), with and
    without `heads`: model.analysis.ablation.TopPredictions, or None when that word is a special token."""
    from model.analysis.ablation_view import masked_word_view
    return masked_word_view(loaded(name, device).model, _base(name, device, text, mode), word, heads, mode)


@st.cache_data(max_entries=RUNS_KEPT, show_spinner=False)
def value_norms(name: str, device: str, text: str):
    """model.analysis.value_norms.NormView of the text (Kobayashi et al.'s norms and both rollouts)."""
    from model.analysis.value_norms import norm_view
    return norm_view(loaded(name, device).model, qkv_run(name, device, text))


@st.cache_data(max_entries=RUNS_KEPT, show_spinner="Reading many sentences… · 正在读取多个句子…")
def sentences_qk(name: str, device: str, layer: int, head: int, n: int):
    """model.analysis.qk_projection.SentenceQK of one head on n held-out course-world sentences."""
    from model.analysis.coref_scores import heldout_texts
    from model.analysis.qk_projection import sentences_qk as run
    h = loaded(name, device)
    return run(h.model, h.tokenizer, h.text_rule, heldout_texts(n), layer, head)


@st.cache_data(max_entries=MEASURES_KEPT, show_spinner="Removing each head in turn on held-out sentences… · "
                                                       "正在留出的句子上逐个移除每个头…")
def coref_head_effects(name: str, device: str, mode: str):
    """model.analysis.ablation_eval.HeadEffects of the coreference encoder on the held-out pairs of
    `python -m model.evaluate` (its eval_pairs pairs), one head removed at a time."""
    from app_pages._runs import coref_eval_pairs
    from model.analysis.ablation_eval import head_effects
    from model.analysis.coref_scores import heldout_pairs
    h = loaded(name, device)
    return head_effects(h.model, h.tokenizer, heldout_pairs(coref_eval_pairs()), tuple(h.meta["coref_head"]), mode)
