"""What removing heads does to one text, as a page shows it (model.analysis.ablation does the removing): every
layer's attention after, the change of the output at each token, and for a model with a pronoun cloze head its
answer for every pronoun before and after; for an encoder, its top fillers of one hidden word."""
from dataclasses import dataclass

import numpy as np

from model.analysis import ablation as abl
from model.analysis.head_stats import antecedent_candidates
from model.data import bpe
from model.data.course_world import PRONOUNS
from model.tasks.results import TextRun


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


def _means(run: TextRun, mode: str) -> np.ndarray | None:
    """Each head's mean output over the text (L, H, D) for mean ablation; the run must hold v."""
    return abl.head_means(run.weights, run.v) if mode == "mean" else None


def ablation_view(model, run: TextRun, heads, mode: str, cloze: bool = False) -> AblationView:
    """`run` (weights and hidden states; v too for mean ablation) read again without `heads` (zero or mean
    ablation). cloze: the model has a pronoun cloze head, whose answers are compared."""
    heads = tuple(tuple(h) for h in heads)
    before = abl.final_state(model, run.hidden[-1])
    after = abl.run_ablated(model, run.ids, heads, mode, _means(run, mode))
    change = abl.attention_change(run.weights, after.weights)
    if model.lm_head is None:
        a, b = before.astype(np.float64).mean(0), after.final.astype(np.float64).mean(0)
        cosine = float(a @ b / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-12))
        return AblationView(heads, mode, after.weights, change, None, None, None, {}, {}, cosine)
    kl, flipped, top = abl.output_change(model, before, after.final)
    answers = ({}, {})
    if cloze:
        words = list(run.word_texts)
        cands = {w: antecedent_candidates(words, w) for w, t in enumerate(words) if t.strip().lower() in PRONOUNS}
        answers = tuple(abl.cloze_answers(model, f, run.ids, run.words, words, cands) for f in (before, after.final))
    return AblationView(heads, mode, after.weights, change, kl, flipped, top, *answers)


def masked_word_view(model, run: TextRun, word: int, heads, mode: str):
    """An encoder's top fillers for word `word` of the run's text hidden behind [MASK] (its first piece), with and
    without `heads`: model.analysis.ablation.TopPredictions, or None when that word is a special token."""
    pieces = run.words[word]
    if any(run.ids[k] < len(bpe.SPECIALS) for k in pieces):
        return None
    ids = abl.masked_ids(run.ids, pieces)
    before = abl.run_ablated(model, ids, weights=False)
    after = abl.run_ablated(model, ids, heads, mode, _means(run, mode), weights=False)
    p, q = (abl.probabilities(model, r.final, [pieces[0]])[0] for r in (before, after))
    return abl.top_predictions(p, q)
