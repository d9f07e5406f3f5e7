"""Learning from the prompt: copy accuracy counted on constructed prompts whose right and wrong guesses are known,
the held-out prompts (a span repeated where they say, drawn apart from training), the shipped incontext_copy model
(its evaluate figures against a direct count, the position curve, the induction head and its ablation) and the
tab's figures."""
import numpy as np
import pytest
import torch

from model import checkpoints
from model.analysis import incontext
from model.data import symbol_streams as symbols
from model.data.word_tokenizer import BOS
from model.lab import lessons, tasks
from viz import incontext as figures_of
from viz.incontext import FIRST, OTHER, RIGHT, SECOND, UNSCORED, WRONG

TASK = lessons.LESSONS["induction"].data
NAME = "incontext_copy"


def constructed() -> tuple[incontext.Prompts, np.ndarray]:
    """Two rows of 10 ids: row 0's span of 3 at 1 and 5, row 1's span of 4 at 2 and 6; predictions all right but
    row 0 at 6 (second copy, offset 1), row 1 at 2 and 3 (first copy, offsets 0 and 1) and at 8 (second, offset 2)."""
    ids = np.array([[BOS, 10, 11, 12, 20, 10, 11, 12, 21, 22],
                    [BOS, 30, 13, 14, 15, 16, 13, 14, 15, 16]])
    p = incontext.Prompts(ids, np.array([1, 2]), np.array([5, 6]), np.array([3, 4]))
    predicted = np.concatenate([ids[:, 1:], np.zeros((2, 1), int)], axis=1)        # the true next token
    for r, q in ((0, 6), (1, 2), (1, 3), (1, 8)):
        predicted[r, q] = 99
    return p, predicted


def test_copy_accuracy_counts_each_copy_and_offset():
    p, predicted = constructed()
    acc = incontext.copy_accuracy(predicted, p)
    # second copy: row 0 offsets 0 ✓ 1 ✗; row 1 offsets 0 ✓ 1 ✓ 2 ✗ -> 3 of 5
    assert acc.second == pytest.approx(3 / 5)
    assert acc.second_count.tolist() == [2, 2, 1] and acc.first_count.tolist() == [2, 2, 1]
    assert acc.second_by_offset.tolist() == pytest.approx([1.0, 0.5, 0.0])
    # first copy: row 0 both ✓; row 1 offsets 0 ✗ 1 ✗ 2 ✓ -> 3 of 5
    assert acc.first == pytest.approx(3 / 5) and acc.first_by_offset.tolist() == pytest.approx([0.5, 0.5, 1.0])


def test_heldout_prompts_repeat_their_span_where_they_say():
    p = incontext.prompts(TASK, 0, 64)
    assert p.ids.shape == (64, TASK["length"]) and (p.ids[:, 0] == BOS).all()
    assert (p.ids[:, 1:] >= symbols.LOW).all() and (p.ids < TASK["vocab"]).all()
    assert ((TASK["spans"][0] <= p.span) & (p.span <= TASK["spans"][1])).all()
    for r in range(64):
        a, c, s = p.first[r], p.second[r], p.span[r]
        assert a >= 1 and c >= a + s and c + s <= TASK["length"]
        assert (p.ids[r, a:a + s] == p.ids[r, c:c + s]).all()
    fixed = incontext.prompts(TASK, 3, 8, span=12)
    assert (fixed.span == 12).all() and np.array_equal(fixed.ids, incontext.prompts(TASK, 3, 8, span=12).ids)
    assert not np.array_equal(fixed.ids, incontext.prompts(TASK, 4, 8, span=12).ids)
    with pytest.raises(ValueError, match="span is 16; it must be from 2 to 15"):
        incontext.prompts(TASK, 0, 1, span=16)


def test_heldout_prompts_are_not_training_rows():
    train = {tuple(row) for step in range(0, 2500, 50)
             for row in tasks.next_token_batch(TASK, 0, step, 32)[0].numpy()}
    held = incontext.prompts(TASK, 0, 512).ids
    assert not any(tuple(row) in train for row in held)


def test_recording_where_spans_go_leaves_the_training_rows_unchanged():
    x = symbols.stream(np.random.default_rng(5), 8, 33, 64, 0.1)
    placed = []
    a = symbols.repeat_spans(np.random.default_rng(9), x.copy(), (3, 10), 2)
    b = symbols.repeat_spans(np.random.default_rng(9), x.copy(), (3, 10), 2, placed)
    assert np.array_equal(a, b) and len(placed) == 16


@pytest.fixture(scope="module")
def shipped():
    if NAME not in checkpoints.shipped():
        pytest.fail(f"{NAME} is not in assets/: train it with `python -m model.train {NAME}`")
    torch.set_num_threads(1)
    return checkpoints.load(NAME)


@pytest.fixture(scope="module")
def figures(shipped):
    from model.training.recipes import incontext_copy
    return incontext_copy.evaluate()


def test_evaluate_copy_accuracy_is_a_direct_count_on_heldout_prompts(shipped, figures):
    model, meta = shipped
    p = incontext.prompts(TASK, 0, 512)
    with torch.no_grad():
        guess = model(torch.as_tensor(p.ids)).argmax(-1).numpy()
    right = total = 0
    for r in range(512):
        q = np.arange(p.second[r], p.second[r] + p.span[r] - 1)
        right += int((guess[r, q] == p.ids[r, q + 1]).sum())
        total += len(q)
    assert figures["incontext_copy_acc"] == pytest.approx(right / total, abs=1e-4)
    assert figures["incontext_copy_acc"] >= 0.8                         # copies at least 4 in 5 held-out tokens
    assert meta["metrics"]["incontext_copy_acc"] == pytest.approx(right / total, abs=1e-4)     # what pages show
    assert meta["retrain"] == f"python -m model.train {NAME}" and meta["lab"]["lesson"] == "induction"


def test_position_curve_copies_the_second_copy_and_guesses_the_first(figures):
    second, first = figures["copy_acc_by_offset"], figures["first_copy_acc_by_offset"]
    assert len(second) == len(first) == TASK["spans"][1] - 1
    assert min(second) > 0.75 and max(first) < 0.2
    assert figures["queries_by_offset"][0] == 512 and figures["queries_by_offset"][-1] < 512   # spans of 3..10


def test_the_scorers_induction_head_does_the_copying(shipped, figures):
    model, _ = shipped
    from model.analysis import head_scores
    table = head_scores.induction_scores(model, span=incontext.SCORER_SPAN, prefix=[BOS], low=symbols.LOW)
    assert figures["induction_head"] == [1, 0] and figures["induction_score_best"] == pytest.approx(
        float(table[1, 0]), abs=1e-4)
    assert figures["induction_score_best"] > 0.5 and figures["previous_token_head"] == [0, 0]
    assert figures["incontext_copy_acc_without_induction_head"] < 0.2 < figures["incontext_copy_acc"]


def test_prompt_run_reads_one_prompt_and_ablates_the_head(shipped):
    model, meta = shipped
    run = incontext.prompt_run(model, meta["lab"]["data"], 7, 9, n_curve=64)
    p = incontext.prompts(TASK, 7, 1, 9)
    assert np.array_equal(run.ids, p.ids[0]) and (run.first, run.second, run.span) == (p.first[0], p.second[0], 9)
    assert np.array_equal(run.predicted, incontext.predict(model, p.ids)[0])
    assert run.weights.shape == (2, 1, 32, 32) and np.allclose(run.weights.sum(-1), 1, atol=1e-5)
    zeroed = incontext.prompt_run(model, meta["lab"]["data"], 7, 9, ablate=True, n_curve=64)
    assert run.curve.second > 0.7 > 0.2 > zeroed.curve.second


def test_prompt_strip_marks_right_and_wrong_on_the_second_copy_only():
    tokens = ["[BOS]", "ba", "be", "bi", "ko", "ba", "be", "bi"]          # span of 3 at 1 and at 5
    predicted = ["ka", "ka", "bi", "ka", "ba", "be", "ko", "ba"]            # at 5 right (be), at 6 wrong (ko ≠ bi)
    fig = figures_of.plot_prompt_predictions(tokens, predicted, np.full(8, 0.5), first=1, second=5, span=3)
    z = np.asarray(fig.data[0].z)
    assert z[0].tolist() == [OTHER, FIRST, FIRST, FIRST, OTHER, SECOND, SECOND, SECOND]
    assert z[1].tolist() == [UNSCORED] * 6 + [RIGHT, WRONG]               # each guess under the token it guesses
    assert list(fig.layout.xaxis2.ticktext) == tokens
    assert list(fig.layout.xaxis.ticktext) == ["–", *predicted[:-1]]


def test_induction_targets_sit_one_span_left_of_the_diagonal_and_curve_traces_carry_the_values():
    assert figures_of.induction_targets(1, 5, 3) == [(5, 2), (6, 3)]
    fig = figures_of.plot_accuracy_by_offset(np.array([0.1, 0.0]), np.array([0.9, 1.0]), chance=0.02)
    assert list(fig.data[0].x) == [2, 3] and list(fig.data[0].y) == [0.9, 1.0] and list(fig.data[1].y) == [0.1, 0.0]
