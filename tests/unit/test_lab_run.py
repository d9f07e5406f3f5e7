"""A training-lab run: a stop and resume that ends where an uninterrupted run ends (snapshots on schedule, the
trained model readable by checkpoints.load and scoring as its last snapshot did), a run through the process-wide
job queue (its child under the memory bound) cancelled and its process gone, and `python -m model.lab --json`.
The page's test (tests/app/test_training_lab.py) runs a short lesson through the queue to the end."""
import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

from model import checkpoints
from model.analysis import head_scores
from model.lab import lessons, run
from runtime import job_queue
from tests.app.conftest import ROOT

TINY = dict(n_layers=1, n_heads=2, d_model=16, lr=1e-2, steps=6)


def lab_command(folder, *extra) -> list[str]:
    return [sys.executable, "-m", "model.lab", "previous", "--stream", "--out", str(folder), "--nice", "0", *extra]


def test_a_stopped_run_resumed_ends_where_an_uninterrupted_run_ends(tmp_path):
    lesson = lessons.LESSONS["previous"]
    settings = lesson.replace(**TINY)
    straight = run.train(lesson, settings, tmp_path / "straight")

    class Stop(Exception):
        pass

    def stop_at_three(row):                                           # as a kill right after step 3's checkpoint
        if row["event"] == "snapshot" and row["step"] == 3:
            raise Stop
    with pytest.raises(Stop):
        run.train(lesson, settings, tmp_path / "stopped", emit=stop_at_three)
    assert run.saved_state(tmp_path / "stopped")["step"] == 3
    resumed = run.train(lesson, settings, tmp_path / "stopped", resume=True)
    assert resumed["loss_final"] == pytest.approx(straight["loss_final"], abs=1e-5)
    a, _ = checkpoints.load("lab_previous", assets=tmp_path / "straight")
    b, _ = checkpoints.load("lab_previous", assets=tmp_path / "stopped")
    for (name, x), y in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.allclose(x, y, atol=1e-6), name
    history = run.saved_state(tmp_path / "stopped")["snapshots"]
    assert [s["step"] for s in history] == list(range(7))            # every step when a run has ≤ 40 of them
    assert [len(s["losses"]) for s in history] == [0] + [1] * 6
    weights = run.snapshot_weights(tmp_path / "stopped", 6)          # (L, H, T, T), rows sum to 1
    assert weights.shape[:2] == (1, 2) and np.allclose(weights.sum(-1), 1, atol=2e-3)
    model, meta = checkpoints.load("lab_previous", assets=tmp_path / "stopped")
    assert meta["text_input"] == "bos" and meta["lab"]["settings"]["steps"] == 6
    probes = lessons.probes(lesson, lessons.tokenizer(lesson))
    again = head_scores.previous_token_scores(head_scores.attention_weights(model, probes.ids))
    assert again == pytest.approx(np.asarray(history[-1]["scores"]["previous"]), abs=1e-3)   # the model saved

def test_a_cancelled_run_frees_its_process(tmp_path):
    queue = job_queue.Queue(slots=1, waiting=2)
    job = queue.submit(lab_command(tmp_path, "--steps", "4000", "--d-model", "16"), owner="s2", what="lab", cwd=ROOT)
    assert job.memory_mb == job_queue.MEMORY_MB                         # the queue's bound on the child's address space
    deadline = time.monotonic() + 120
    while not any(r["event"] == "progress" for r in job.rows) and time.monotonic() < deadline:
        job.wait(1)
    pid = job.proc.pid
    job.cancel("stopped")
    assert job.state == job_queue.CANCELLED and queue.counts() == (0, 0)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)                                               # gone, with its thread and memory


def test_the_command_prints_figures_and_every_snapshot_as_json(capsys):
    out = subprocess.run([sys.executable, "-m", "model.lab", "previous", "--json", "--steps", "10", "--d-model", "16",
                          "--nice", "0"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)
    assert [s["step"] for s in figures["snapshots"]] == list(range(11))
    assert set(figures["snapshots"][0]["scores"]) == {"previous", "sink"}
    np.testing.assert_equal(np.shape(figures["snapshots"][-1]["scores"]["previous"]), (1, 2))
    crossed = next((s["step"] for s in figures["snapshots"] if np.max(s["scores"]["previous"]) > 0.5), None)
    assert figures["crossings"] == {"previous": crossed} and figures["previous_step"] == crossed
    for key in ("seconds", "loss_final", "rule_acc_final", "previous_score_final"):
        assert isinstance(figures[key], (int, float))
    from model.lab.__main__ import main
    with pytest.raises(SystemExit) as e:
        main(["previous", "--d-model", "48", "--n-heads", "5", "--nice", "0"])
    assert e.value.code == 2
    assert capsys.readouterr().err == "error: d_model = 48 does not split evenly across 5 heads.\n"
