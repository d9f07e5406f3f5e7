"""The per-head scores the training lab snapshots, on attention patterns whose scores are known by construction (one
head per pattern, the others uniform), and the crossing step read off a history."""
import numpy as np
import pytest

from model.analysis import head_scores
from model.lab import lessons, scores, tasks

T = 9                 # [BOS] + a span of 4 + the span again
START, SPAN = 1, 4


def uniform_causal(T: int) -> np.ndarray:
    return np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]


def one_hot(keys: list[int]) -> np.ndarray:
    """(T, T): query q puts all its weight on keys[q]."""
    w = np.zeros((len(keys), len(keys)))
    w[np.arange(len(keys)), keys] = 1.0
    return w


def patterns() -> np.ndarray:
    """(L=1, B=1, H=4, T, T): H0 previous token, H1 induction, H2 first token, H3 uniform causal."""
    prev = one_hot([0] + list(range(T - 1)))
    induction = uniform_causal(T)
    for k in range(SPAN):                                        # the second copy's token k looks at k + 1
        induction[START + SPAN + k] = 0
        induction[START + SPAN + k, START + k + 1] = 1
    sink = one_hot([0] * T)
    return np.stack([prev, induction, sink, uniform_causal(T)])[None, None]


def test_each_head_scores_one_on_its_own_pattern():
    w = patterns()
    uniform = np.mean(1 / np.arange(2, T + 1))                  # query q of a uniform causal head: 1 / (q + 1)
    first_half = (1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / (T - 1)      # the induction head is uniform on queries 1..4
    # query 1's previous token is the first token: the previous-token and the sink head each score it on one query
    assert head_scores.previous_token_scores(w)[0] == pytest.approx([1, first_half, 1 / (T - 1), uniform])
    induction = head_scores.induction_pattern_scores(w, START, SPAN)[0]
    assert induction[1] == 1 and induction[0] == 0 and induction[2] == 0
    assert induction[3] == pytest.approx(np.mean(1 / (START + SPAN + np.arange(SPAN) + 1)))
    assert head_scores.sink_scores(w)[0] == pytest.approx([1 / (T - 1), first_half, 1, uniform])


def test_target_scores_and_accuracy_find_the_head_that_points_at_the_target():
    w = patterns()
    targets = np.full((1, T), -1)
    targets[0, 5:8] = [2, 3, 4]                                  # what the induction head points at
    assert head_scores.target_scores(w, targets)[0] == pytest.approx([0, 1, 0, np.mean([1 / 6, 1 / 7, 1 / 8])])
    assert head_scores.target_accuracy(w, targets)[0].tolist() == [0, 1, 0, 0]
    with pytest.raises(ValueError, match="no query has a target"):
        head_scores.target_scores(w, np.full((1, T), -1))


def test_head_table_scores_the_lesson_probes_each_way():
    lesson = lessons.LESSONS["induction"]
    probes = tasks.Probes(np.zeros((1, T), np.int64) + 7, ("x",) * T, START, SPAN, np.full((1, T), -1),
                          np.full((1, T), tasks.IGNORE))
    table = scores.head_table(patterns(), probes, lesson.kinds)
    assert set(table) == set(lesson.kinds)
    assert [scores.best(table[k])[1] for k in ("previous", "induction", "sink")] == [(0, 0), (0, 1), (0, 2)]


def test_padded_probe_rows_are_scored_on_their_own_tokens():
    w = np.zeros((1, 2, 1, 4, 4))
    w[0, 0, 0] = one_hot([0, 0, 1, 2])                         # a full row: previous token everywhere
    w[0, 1, 0, :3, :3] = one_hot([0, 0, 1])                    # three tokens then [PAD]
    w[0, 1, 0, 3, 0] = 1                                       # the pad's own row, which must not count
    ids = np.array([[2, 8, 9, 10], [2, 8, 9, 0]])
    probes = tasks.Probes(ids, ("a",) * 4, 0, 0, np.full(ids.shape, -1), np.full(ids.shape, tasks.IGNORE))
    assert scores.head_table(w, probes, ("previous",))["previous"][0, 0] == pytest.approx(1.0)


def test_crossings_give_the_first_snapshot_over_the_threshold():
    history = [{"step": s, "scores": {"induction": [[v]], "previous": [[0.9]]}}
               for s, v in ((0, 0.05), (100, 0.4), (200, 0.51), (300, 0.3), (400, 0.8))]
    assert scores.crossings(history, {"induction": 0.5, "previous": 0.95}) == {"induction": 200, "previous": None}


def test_task_accuracy_counts_only_scored_positions():
    logits = np.zeros((1, 3, 4))
    logits[0, 0, 2] = logits[0, 1, 1] = logits[0, 2, 3] = 1
    answers = np.array([[2, tasks.IGNORE, 0]])
    assert scores.task_accuracy(logits, answers) == 0.5
