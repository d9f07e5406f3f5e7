"""The shipped relative_digits model: its learned bias table is the tensor in its safetensors file, it found the
two offsets its task reads, and it needs the table to solve it; the task's targets and the typed-row check."""
from unittest import mock

import numpy as np
import pytest
import torch
from safetensors.numpy import load_file

from model import checkpoints
from model.analysis import learned_bias
from model.data import offset_digits as task
from model.training.recipes import relative_digits as recipe
from viz.architecture import architecture_blocks
from viz.positional import plot_bias_curves, plot_bias_table, plot_head_weights

NAME = "relative_digits"


@pytest.fixture(scope="module")
def shipped():
    if NAME not in checkpoints.shipped():
        pytest.fail(f"assets/{NAME}.* missing: python -m model.train {NAME}")
    return checkpoints.load(NAME)


def test_targets_are_the_left_digit_minus_the_digit_two_to_the_right():
    x = torch.tensor([[3, 1, 4, 1, 5, 9, 2]])
    # y[1] = 3 − 1 = 2, y[2] = 1 − 5 = −4 ≡ 6, y[3] = 4 − 9 ≡ 5, y[4] = 1 − 2 ≡ 9
    assert task.targets(x).tolist() == [[-100, 2, 6, 5, 9, -100, -100]]


def test_a_typed_row_is_checked_with_a_message():
    assert task.parse("3, 1 4 1").tolist() == [3, 1, 4, 1]
    with pytest.raises(ValueError, match="Only the digits 0–9 can be read; found '<', 'a'"):
        task.parse("3a<14")
    with pytest.raises(ValueError, match="The row has 3 digits; type between 4 and 64."):
        task.parse("314")
    with pytest.raises(ValueError, match="Type a row of digits"):
        task.parse("  ")


def test_the_table_shown_is_the_tensor_in_the_file(shipped):
    model, meta = shipped
    offsets, table = learned_bias.bias_table(model)
    stored = load_file(str(checkpoints.ASSETS / f"{NAME}.safetensors"))["rel_bias.table"]
    c = meta["config"]
    assert table.shape == stored.shape == (c["n_heads"], 2 * c["max_offset"] + 1)
    assert np.array_equal(table, stored.astype(np.float64))
    assert offsets.tolist() == list(range(-c["max_offset"], c["max_offset"] + 1))
    assert c["pos_encoding"] == "relative" and meta["task"]["offsets"] == list(task.OFFSETS)


def test_every_head_prefers_an_offset_the_task_reads_and_the_table_is_needed(shipped):
    model, _ = shipped
    offsets, table = learned_bias.bias_table(model)
    assert set(offsets[table.argmax(1)]) <= set(task.OFFSETS)
    top2 = {frozenset(offsets[np.argsort(row)[-2:]].tolist()) for row in table}
    assert top2 == {frozenset(task.OFFSETS)}                           # every head's two highest: −1 and +2
    with_bias, without = learned_bias.fresh_accuracy(model, rows=256)
    assert with_bias > 0.99 and without < 0.2                          # chance is 0.1


def _count_right(model, x: torch.Tensor) -> tuple[int, int]:
    """Right answers of the model's logits on digit rows x (B, T), against targets worked out here:
    (x[i−1] − x[i+2]) mod 10 at every i with both neighbours inside the row."""
    with torch.no_grad():
        guess = model(x).argmax(-1).numpy()                                # (B, T)
    digits = x.numpy()
    answers = (digits[:, :-3] - digits[:, 3:]) % 10                      # for i = 1 .. T − 3
    return int((guess[:, 1:-2] == answers).sum()), answers.size


def test_evaluate_counts_the_right_answers_on_its_fresh_rows(shipped):
    """evaluate()'s accuracies are the share of right answers on the rows it draws (its seed, then the untrained
    lengths in turn), counted here row by row; the chance figure is one in ten digits."""
    model, _ = shipped
    found = recipe.evaluate()
    gen = torch.Generator().manual_seed(recipe.EVAL["seed"])
    x = torch.randint(0, 10, (recipe.EVAL["rows"], recipe.EVAL["length"]), generator=gen)
    right, total = _count_right(model, x)
    assert total == recipe.EVAL["rows"] * (recipe.EVAL["length"] - 3)
    assert found["accuracy"] == pytest.approx(right / total, abs=1e-4)
    for n in recipe.EVAL["other_lengths"]:
        right, total = _count_right(model, torch.randint(0, 10, (recipe.EVAL["rows"], n), generator=gen))
        assert found["accuracy_at_untrained_lengths"][str(n)] == pytest.approx(right / total, abs=1e-4), n
    assert found["chance"] == 0.1 and found["accuracy_without_the_bias"] < 0.2


def test_a_row_run_gives_weights_and_answers(shipped):
    model, _ = shipped
    run = learned_bias.digit_run(model, task.parse("31415926535"))
    assert run.weights.shape == (1, 4, 11, 11) and np.allclose(run.weights.sum(-1), 1, atol=1e-5)
    assert run.expected.tolist() == [-1, 2, 6, 5, 9, 9, 4, 9, 1, -1, -1]   # (x[i−1] − x[i+2]) mod 10 by hand
    assert run.scored == 8 and run.correct == 8


def test_the_recipe_trains_saves_and_measures(tmp_path):
    with mock.patch.object(checkpoints, "ASSETS", tmp_path):
        metrics = recipe.train(steps=3, tokens_per_step=96, lengths=(8, 12))
        model, meta = checkpoints.load(NAME)
    assert set(metrics) >= {"accuracy", "accuracy_without_the_bias", "accuracy_at_untrained_lengths",
                            "weight_on_task_offsets_per_head"}
    assert meta["recipe"]["steps_done"] == 3 and model.rel_bias.table.shape == (4, 17)


def test_the_architecture_page_draws_the_bias_where_positions_go(shipped):
    _, meta = shipped
    blocks = {b.key: b for b, _ in architecture_blocks(meta["config"])}
    assert blocks["positions"].label == "+ relative positions"
    assert blocks["positions"].lines[0][0] == "a learned bias per head and offset (±8), added to the scores"


def test_the_bias_figures():
    offsets = np.arange(-2, 3)
    table = np.array([[0.0, 1.0, 0.0, 0.0, 0.5], [0.2, 0.0, 0.0, 0.0, 0.0]])
    fig = plot_bias_table(table, offsets, marked=(-1, 2))
    assert list(fig.data[0].x) == ["≤-2", "-1", "+0", "+1", "≥+2"] and list(fig.data[0].y) == ["H0", "H1"]
    assert [s.x0 for s in fig.layout.shapes] == [0.5, 3.5]
    fig = plot_bias_curves(offsets, table, -np.abs(offsets)[None, :] * np.array([[0.5], [0.25]]))
    assert len(fig.data) == 4 and list(fig.data[2].y) == [-1.0, -0.5, 0.0, -0.5, -1.0]
    fig = plot_head_weights(np.ones((2, 3, 3)) / 3, ["1", "2", "3"])
    assert len(fig.data) == 2
