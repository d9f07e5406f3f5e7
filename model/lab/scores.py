"""Per-head scores of one snapshot, taken on a lesson's fixed probes with the one scorer of every text model
(model.analysis.head_scores), and the step where a score first crosses its threshold.

    scores = snapshot(model, probes, lesson)        # {"previous": (L, H), "induction": (L, H), ...}, "task": float
    crossings(history, lesson.thresholds)           # {"induction": 640, "previous": 120, ...} (None: never)

The lab's small model and this scorer are what other pages reuse to find an induction head in a small decoder."""
import numpy as np
import torch

from model.analysis import head_scores
from model.engine.capture import capturing
from model.lab.tasks import IGNORE, Probes

NAMES = ("previous", "induction", "sink", "pronoun", "sort")    # every score a lesson may report


@torch.inference_mode()
def probe_weights(model, probes: Probes) -> tuple[np.ndarray, np.ndarray]:
    """(weights (L, n, H, T, T) float64, logits (n, T, V) float32) of the model on the probe rows; padding ([PAD]
    = 0 after [CLS]) is masked out as a key."""
    ids = torch.as_tensor(probes.ids, device=next(model.parameters()).device)
    pad = (ids != 0)[:, None, None, :]
    with capturing():
        out = model.encode(ids, mask=pad)
    weights = head_scores._as_array([i.weights for i in out.intermediates])
    return weights, model.lm_head(out.x).float().cpu().numpy()


def task_accuracy(logits: np.ndarray, answers: np.ndarray) -> float:
    """Share of the scored positions (answers ≠ IGNORE) whose top prediction is the answer."""
    keep = answers != IGNORE
    return float((logits.argmax(-1)[keep] == answers[keep]).mean()) if keep.any() else float("nan")


def _unpadded(score, weights: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """score(weights) over rows of different lengths ([PAD] = 0 at the end): each row on its own tokens, the
    rows weighted by their queries after the first."""
    lengths = (ids != 0).sum(axis=1)
    if (lengths == ids.shape[1]).all():
        return score(weights)
    total = sum(score(weights[:, r:r + 1, :, :n, :n]) * (n - 1) for r, n in enumerate(lengths))
    return total / float((lengths - 1).sum())


def head_table(weights: np.ndarray, probes: Probes, kinds: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The (L, H) score of every head for each of `kinds` (names in NAMES) on the probes' weights
    (L, n, H, T, T)."""
    out = {}
    for kind in kinds:
        if kind == "previous":
            out[kind] = _unpadded(head_scores.previous_token_scores, weights, probes.ids)
        elif kind == "induction":
            out[kind] = head_scores.induction_pattern_scores(weights, probes.start, probes.span)
        elif kind == "sink":
            out[kind] = _unpadded(head_scores.sink_scores, weights, probes.ids)
        elif kind == "pronoun":
            out[kind] = head_scores.target_accuracy(weights, probes.targets)
        elif kind == "sort":
            out[kind] = head_scores.target_scores(weights, probes.targets)
        else:
            raise ValueError(f"unknown score {kind!r}; choose from {NAMES}")
    return out


def snapshot(model, probes: Probes, kinds: tuple[str, ...]) -> tuple[dict[str, np.ndarray], float, np.ndarray]:
    """(scores per kind (L, H), the task accuracy on the probes, row 0's weights (L, H, T, T) float32)."""
    was = model.training
    model.eval()
    try:
        weights, logits = probe_weights(model, probes)
    finally:
        model.train(was)
    T = len(probes.tokens)
    return head_table(weights, probes, kinds), task_accuracy(logits, probes.answers), \
        weights[:, 0, :, :T, :T].astype(np.float32)


def best(table: np.ndarray) -> tuple[float, tuple[int, int]]:
    """The highest score of an (L, H) table and its (layer, head)."""
    return head_scores.best(table)


def crossings(history: list[dict], thresholds: dict[str, float]) -> dict[str, int | None]:
    """For each score with a threshold: the step of the first snapshot whose best head scores above it (None if
    none did). history: snapshots in order, each {"step": int, "scores": {kind: (L, H) nested lists}}."""
    out = {}
    for kind, limit in thresholds.items():
        out[kind] = next((s["step"] for s in history
                          if kind in s["scores"] and np.max(s["scores"][kind]) > limit), None)
    return out
