"""The one training loop: the warmup + cosine schedule, the CPU-time budget that ends the schedule early,
a model that learns, and the recipe registry's message for an unknown name."""
import io
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from model.training import loop, recipes


def test_schedule_warms_up_linearly_then_decays_as_a_cosine_to_zero():
    # 100 steps, 6 % warmup = 6 steps: 1/6, 2/6, ... 6/6 of lr, then 0.5 (1 + cos(pi (s - 6) / 94))
    assert [loop.lr_at(s, 100, 1.0) for s in range(6)] == pytest.approx([1 / 6, 2 / 6, 3 / 6, 4 / 6, 5 / 6, 1.0])
    assert loop.lr_at(6, 100, 1.0) == pytest.approx(1.0)
    assert loop.lr_at(53, 100, 2.0) == pytest.approx(2.0 * 0.5 * (1 + math.cos(math.pi * 47 / 94)))
    assert loop.lr_at(99, 100, 1.0) == pytest.approx(0.5 * (1 + math.cos(math.pi * 93 / 94)))
    assert loop.lr_at(99, 100, 1.0) < 1e-3


@pytest.mark.parametrize("step,elapsed,budget,expected", [
    (10, 5.0, None, 10),          # no budget: the step itself
    (10, 50.0, 100.0, 50),        # half the time spent at step 10 of 100: the schedule is half way
    (80, 50.0, 100.0, 80),        # steps ahead of time: the step
    (3, 100.0, 100.0, 100),       # time spent: the end (the loop stops)
])
def test_schedule_follows_whichever_of_steps_and_time_runs_out_first(step, elapsed, budget, expected):
    assert loop.schedule_step(step, 100, elapsed, budget) == expected


def _regression(seed: int):
    rng = np.random.default_rng(seed)
    x = torch.from_numpy(rng.normal(size=(256, 3)).astype(np.float32))
    y = x @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.3
    return x, y


def test_fit_learns_a_linear_map_and_returns_every_steps_loss():
    x, y = _regression(seed=1)
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    history = loop.fit(model, lambda step: (x, y), lambda m, b: (F.mse_loss(m(b[0]), b[1]), len(b[0])),
                       steps=300, lr=0.1, weight_decay=0.0, label="test")
    assert len(history) == 300
    assert history[-1] < 1e-3 < history[0]
    torch.testing.assert_close(model.weight.detach(), torch.tensor([[1.5, -2.0, 0.5]]), atol=0.02, rtol=0)
    assert not model.training


def test_fit_stops_when_the_cpu_time_budget_is_spent(monkeypatch):
    clock = iter(np.arange(0.0, 1000.0, 1.0))                 # each reading of the clock: one more second
    monkeypatch.setattr(loop.time, "process_time", lambda: float(next(clock)))
    x, y = _regression(seed=2)
    drawn = []

    def loss_fn(m, b):
        return F.mse_loss(m(b[0]), b[1]), len(b[0])

    def next_batch(step):
        drawn.append(step)
        return x, y
    history = loop.fit(torch.nn.Linear(3, 1), next_batch, loss_fn, steps=1000, lr=0.01, time_budget_s=20)
    # t0 is read once, then once per step: step s sees s + 1 seconds, so steps 0..18 run
    assert len(history) == 19 == len(drawn)


def test_progress_bar_prints_every_tenth_step_and_the_last():
    out = io.StringIO()
    bar = loop.Progress(25, "demo", stream=out)
    for step in range(1, 26):
        bar.update(step, loss=1.0 / step, tokens=100, lr=1e-3)
    bar.close()
    lines = out.getvalue().split("\r")[1:]
    assert [line.split(" step ")[1].split(" ")[0] for line in lines] == ["10/25", "20/25", "25/25"]
    assert "loss 0.0400" in lines[-1] and out.getvalue().endswith("\n")


def test_an_unknown_recipe_name_is_a_value_error_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown model 'nope'; choose one of .*translator"):
        recipes.get("nope")
    assert recipes.get("translator").NAME == "translator"
