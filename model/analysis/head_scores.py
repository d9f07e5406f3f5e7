"""Two scores per attention head, one scorer for every text model and the training lab.

previous-token score: mean weight from each token on the token just before it (Clark et al. 2019;
    the previous-token heads of Olsson et al. 2022).
induction score: on a random span of tokens repeated twice, mean weight from each token of the second copy
    on the token that followed its first occurrence (Olsson et al. 2022, "In-context learning and induction
    heads"). Uniform causal attention over N keys gives about 1/N; a perfect induction head gives 1.
sink score: mean weight on the first position ([BOS] or [CLS]), where heads park attention they do not use
    (Xiao et al. 2023, "attention sinks"; Clark et al. 2019 saw it on [CLS] and [SEP]).
target score and target accuracy: for a task that names, for some queries, the one key a head should find (the
    antecedent of a pronoun, the next number of a sorted list): the mean weight on it, and the share of those
    queries whose largest weight is on it.

Each returns an (L, H) float64 array: layer l, head h.
"""
import numpy as np
import torch

from model.engine.capture import capturing


def _as_array(weights) -> np.ndarray:
    """(L, H, T, T) or (L, B, H, T, T) weights (numpy, a tensor, or a list of per-layer (B, H, T, T)
    tensors) -> float64 (L, B, H, T, T)."""
    if isinstance(weights, (list, tuple)):
        weights = torch.stack([torch.as_tensor(w) for w in weights])
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().float().cpu().numpy()
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 4:
        w = w[:, None]
    if w.ndim != 5 or w.shape[-1] != w.shape[-2]:
        raise ValueError(f"weights must be (L, H, T, T) or (L, B, H, T, T); got shape {w.shape}")
    return w


def previous_token_scores(weights) -> np.ndarray:
    """Mean over queries 1..T-1 (and over the batch) of the weight on key i - 1. -> (L, H); zeros if T < 2."""
    w = _as_array(weights)
    if w.shape[-1] < 2:
        return np.zeros((w.shape[0], w.shape[2]))
    return np.diagonal(w, offset=-1, axis1=-2, axis2=-1).mean(axis=(1, 3))


def induction_pattern_scores(weights, start: int, span: int) -> np.ndarray:
    """Weights of a sequence whose positions start..start+span-1 are repeated at start+span..start+2·span-1:
    mean over the second copy's positions start+span+k of the weight on key start+k+1. -> (L, H)."""
    w = _as_array(weights)
    k = np.arange(span)
    return w[..., start + span + k, start + k + 1].mean(axis=(1, 3))


def sink_scores(weights) -> np.ndarray:
    """Mean over queries 1..T-1 (and over the batch) of the weight on key 0. -> (L, H); zeros if T < 2."""
    w = _as_array(weights)
    if w.shape[-1] < 2:
        return np.zeros((w.shape[0], w.shape[2]))
    return w[..., 1:, 0].mean(axis=(1, 3))


def _targeted(weights, targets) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(L, B, H, T, T) weights and the (b, q, key) triples of `targets` (B, T) int, −1 = no target."""
    w = _as_array(weights)
    t = np.asarray(targets)
    if t.shape != (w.shape[1], w.shape[-1]):
        raise ValueError(f"targets must be (B, T) = {(w.shape[1], w.shape[-1])}; got {t.shape}")
    b, q = np.nonzero(t >= 0)
    if not len(b):
        raise ValueError("no query has a target")
    return w, b, q


def target_scores(weights, targets) -> np.ndarray:
    """Mean weight on each query's target key, over the queries that have one. targets: (B, T) int, −1 = none.
    -> (L, H)."""
    w, b, q = _targeted(weights, targets)
    return w[:, b, :, q, np.asarray(targets)[b, q]].mean(axis=0)


def target_accuracy(weights, targets) -> np.ndarray:
    """Share of the queries with a target whose largest weight is on it. -> (L, H)."""
    w, b, q = _targeted(weights, targets)
    return (w[:, b, :, q, :].argmax(-1) == np.asarray(targets)[b, q][:, None, None]).mean(axis=0)


def repeated_spans(vocab_size: int, span: int, n_seqs: int, seed: int = 0, low: int = 0) -> np.ndarray:
    """(n_seqs, 2·span) int64: a random span of ids drawn from low..vocab_size-1 (no id twice within a
    span), then the same span again."""
    rng = np.random.default_rng(seed)
    first = np.stack([rng.choice(np.arange(low, vocab_size), size=span, replace=False) for _ in range(n_seqs)])
    return np.concatenate([first, first], axis=1).astype(np.int64)


@torch.inference_mode()
def attention_weights(model, ids) -> np.ndarray:
    """Every layer's attention of a text model on ids (B, T): float64 (L, B, H, T, T)."""
    x = torch.as_tensor(ids, dtype=torch.long, device=next(model.parameters()).device)
    with capturing():
        out = model.encode(x)
    return _as_array([i.weights for i in out.intermediates])


def induction_scores(model, span: int = 32, n_seqs: int = 8, seed: int = 0, prefix=(), suffix=(),
                     low: int = 0) -> np.ndarray:
    """Induction score of each head: the model reads prefix + span + span + suffix (random ids ≥ low, e.g.
    past the special tokens; prefix such as [BOS] or [CLS], suffix such as [SEP]). -> (L, H)."""
    if 2 * span + len(prefix) + len(suffix) > model.config.max_len:
        raise ValueError(f"a span of {span} repeated twice does not fit {model.config.max_len} positions")
    body = repeated_spans(model.config.vocab_size, span, n_seqs, seed, low)
    ids = np.concatenate([np.tile(np.asarray(prefix, np.int64), (n_seqs, 1)), body,
                          np.tile(np.asarray(suffix, np.int64), (n_seqs, 1))], axis=1)
    return induction_pattern_scores(attention_weights(model, ids), len(prefix), span)


def text_previous_token_scores(model, seqs: list[list[int]]) -> np.ndarray:
    """Previous-token score of each head on real texts (each a list of ids, run alone), averaged over all
    their queries. -> (L, H)."""
    total, count = 0.0, 0
    for s in seqs:
        if len(s) < 2:
            continue
        total = total + previous_token_scores(attention_weights(model, [s])) * (len(s) - 1)
        count += len(s) - 1
    if not count:
        raise ValueError("no text of two or more tokens to score")
    return total / count


def best(scores: np.ndarray) -> tuple[float, tuple[int, int]]:
    """The highest score of an (L, H) array and its (layer, head)."""
    scores = np.asarray(scores)
    layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return float(scores[layer, head]), (int(layer), int(head))
