"""Learning from the prompt, at the smallest scale: a decoder copies a span it saw earlier in its prompt (Olsson
et al. 2022, "In-context learning and induction heads"). The prompts are the training lab's induction data
(model.data.symbol_streams: random syllables, one span repeated later) drawn from seeds no lab run trains on; the
head is the one the shared scorer (model.analysis.head_scores) ranks first.

    p = prompts(task, seed=0, n=512)                       # ids (n, T), each row's two copies
    acc = copy_accuracy(predict(model, p.ids), p)          # second copy (copied), first copy (chance)
    run = prompt_run(model, task, seed=3, span=8)          # one prompt's predictions and attention, for the page

Scored positions: a query at offset k of a copy (k = 0 .. span − 2) predicts the copy's token k + 1. In the second
copy the answer is in the prompt (the token after the first copy's k); in the first copy it is random."""
from dataclasses import dataclass

import numpy as np
import torch

from model.analysis import head_scores
from model.data import symbol_streams as symbols
from model.data.word_tokenizer import BOS
from model.engine.ablation import ablating
from model.engine.capture import capturing

HELDOUT_SEED = 10_000    # prompts come from default_rng([HELDOUT_SEED, seed]); lab runs train on [seed ≤ 9999, step]
MAX_SPAN = 15            # the longest span that fits twice after [BOS] in the lab's 32 positions
SCORER_SPAN = 12         # the scorer's repeated span (the lab's probe span)


@dataclass(frozen=True)
class Prompts:
    """ids: (n, T) int64, [BOS] then symbols; first, second: (n,) where each row's span starts, then starts again;
    span: (n,) its length."""
    ids: np.ndarray
    first: np.ndarray
    second: np.ndarray
    span: np.ndarray


@dataclass(frozen=True)
class CopyAccuracy:
    """Next-token accuracy at the scored offsets k = 0 .. max span − 2. second, first: over every scored query of
    the second (copied) and first (random) copies; *_by_offset: (K,) per offset k (nan where no query);
    *_count: (K,) queries per offset."""
    second: float
    first: float
    second_by_offset: np.ndarray
    first_by_offset: np.ndarray
    second_count: np.ndarray
    first_count: np.ndarray


@dataclass(frozen=True)
class PromptRun:
    """One prompt read by the model. ids: (T,); predicted: (T,) the top next token at each position; prob: (T,) its
    probability; weights: (L, H, T, T) attention; first, second, span: the repeated span; induction, previous:
    (L, H) the shared scorer's scores of every head (on its own repeated spans, not on this prompt); head: the best
    induction head (layer, head); curve: the copy accuracy on more prompts of this span length."""
    ids: np.ndarray
    predicted: np.ndarray
    prob: np.ndarray
    weights: np.ndarray
    first: int
    second: int
    span: int
    induction: np.ndarray
    previous: np.ndarray
    head: tuple[int, int]
    curve: CopyAccuracy


def prompts(task: dict, seed: int, n: int, span: int | None = None) -> Prompts:
    """n held-out prompts of task["length"] tokens from the lab's generator (symbol_streams.stream, then one span
    repeated by symbol_streams.repeat_spans): span lengths as in training (task["spans"]) or all `span` long."""
    if span is not None and not 2 <= span <= min(MAX_SPAN, (task["length"] - 1) // 2):
        raise ValueError(f"span is {span}; it must be from 2 to {min(MAX_SPAN, (task['length'] - 1) // 2)}")
    rng = np.random.default_rng([HELDOUT_SEED, seed])
    x = symbols.stream(rng, n, task["length"], task["vocab"], task["skip"])
    placed: list = []
    symbols.repeat_spans(rng, x, (span, span) if span else tuple(task["spans"]), 1, placed)
    _, a, c, s = (np.array(v) for v in zip(*placed))
    return Prompts(x.astype(np.int64), a, c, s)


@torch.inference_mode()
def logits_of(model, ids, edits: dict | None = None) -> np.ndarray:
    """(n, T, V) float32 logits on ids (n, T); edits: heads to zero (model.engine.ablation)."""
    x = torch.as_tensor(ids, dtype=torch.long, device=next(model.parameters()).device)
    with ablating(edits or {}):
        return model(x).float().cpu().numpy()


def predict(model, ids, edits: dict | None = None) -> np.ndarray:
    """(n, T) the top next token at each position."""
    return logits_of(model, ids, edits).argmax(-1)


def copy_accuracy(predicted: np.ndarray, p: Prompts) -> CopyAccuracy:
    """Accuracy of predicted (n, T) next tokens at offsets k = 0 .. span − 2 of each row's first and second copy."""
    K = int(p.span.max()) - 1
    hits = {"first": np.zeros(K), "second": np.zeros(K)}
    count = {"first": np.zeros(K, int), "second": np.zeros(K, int)}
    for r in range(len(p.ids)):
        for which, start in (("first", p.first[r]), ("second", p.second[r])):
            for k in range(int(p.span[r]) - 1):
                q = int(start) + k
                hits[which][k] += predicted[r, q] == p.ids[r, q + 1]
                count[which][k] += 1
    with np.errstate(invalid="ignore"):
        by = {w: np.where(count[w] > 0, hits[w] / np.maximum(count[w], 1), np.nan) for w in hits}
    return CopyAccuracy(float(hits["second"].sum() / count["second"].sum()),
                        float(hits["first"].sum() / count["first"].sum()), by["second"], by["first"],
                        count["second"], count["first"])


def head_edit(model, layer: int, head: int) -> dict:
    """The ablation request that zeroes one head's output."""
    return {model.encoder.layers[layer].self_attn: {head: None}}


def scorer_tables(model, vocab: int) -> tuple[np.ndarray, np.ndarray]:
    """(induction, previous-token) scores (L, H) of every head from the shared scorer, on [BOS] + a span of
    SCORER_SPAN distinct symbols + the same span (its seed 0)."""
    prefix = [BOS]
    body = head_scores.repeated_spans(vocab, SCORER_SPAN, 8, 0, symbols.LOW)
    ids = np.concatenate([np.full((len(body), 1), BOS), body], axis=1)
    weights = head_scores.attention_weights(model, ids)
    return (head_scores.induction_pattern_scores(weights, len(prefix), SCORER_SPAN),
            head_scores.previous_token_scores(weights))


def measure(model, task: dict, n: int = 512, seed: int = 0) -> dict:
    """The shipped model's figures: copy accuracy on n held-out prompts (second copy: incontext_copy_acc; first
    copy: the contrast), both per offset, the best induction and previous-token heads, and the copy accuracy with
    each of them zeroed."""
    p = prompts(task, seed, n)
    acc = copy_accuracy(predict(model, p.ids), p)
    induction, previous = scorer_tables(model, task["vocab"])
    ind, ind_at = head_scores.best(induction)
    prev, prev_at = head_scores.best(previous)
    without = {f"incontext_copy_acc_without_{name}_head": round(copy_accuracy(
        predict(model, p.ids, head_edit(model, *at)), p).second, 4)
        for name, at in (("induction", ind_at), ("previous_token", prev_at))}
    rounded = lambda a: [None if np.isnan(v) else round(float(v), 4) for v in a]        # noqa: E731
    return {"incontext_copy_acc": round(acc.second, 4), "first_copy_acc": round(acc.first, 4),
            "chance": round(1 / (task["vocab"] - symbols.LOW), 4),
            "copy_acc_by_offset": rounded(acc.second_by_offset),
            "first_copy_acc_by_offset": rounded(acc.first_by_offset),
            "queries_by_offset": acc.second_count.tolist(),
            "induction_score_best": round(ind, 4), "induction_head": list(ind_at),
            "previous_token_score_best": round(prev, 4), "previous_token_head": list(prev_at), **without,
            "heldout_prompts": n, "heldout_seed": [HELDOUT_SEED, seed], "span_lengths": list(task["spans"])}


@torch.inference_mode()
def prompt_run(model, task: dict, seed: int, span: int, ablate: bool = False, n_curve: int = 256) -> PromptRun:
    """One held-out prompt (prompts(task, seed, 1, span)) read by the model, with its attention, every head's scores
    and the copy accuracy by offset on n_curve more prompts of the same span length; with `ablate`, the best
    induction head (by the shared scorer) zeroed throughout."""
    induction, previous = scorer_tables(model, task["vocab"])
    head = head_scores.best(induction)[1]
    edits = head_edit(model, *head) if ablate else {}
    p = prompts(task, seed, 1, span)
    x = torch.as_tensor(p.ids, device=next(model.parameters()).device)
    with capturing(), ablating(edits):
        out = model.encode(x)
    probs = torch.softmax(model.lm_head(out.x).float(), -1)[0].cpu().numpy()           # (T, V)
    weights = head_scores._as_array([i.weights for i in out.intermediates])[:, 0]      # (L, H, T, T)
    many = prompts(task, seed, n_curve, span)
    return PromptRun(p.ids[0], probs.argmax(-1), probs.max(-1), weights.astype(np.float32), int(p.first[0]),
                     int(p.second[0]), int(p.span[0]), induction, previous, head,
                     copy_accuracy(predict(model, many.ids, edits), many))
