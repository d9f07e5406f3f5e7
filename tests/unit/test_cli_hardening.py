"""Command lines given what they cannot use answer with one `error:` line and status 2 (README), run as real
processes: `model.lab --out` at a file, the null device or a folder of /proc (before: a FileExistsError or
FileNotFoundError traceback), `bench --only` with a module that does not exist (before: machine info and status
0), `model.train --threads` below 0 or not a number (before: a RuntimeError traceback)."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("out, says", [
    ("/dev/null", "error: --out /dev/null: exists and is not a folder"),
    ("/proc/self", "error: --out /proc/self: a run folder cannot be written there ("),
    ("/proc/self/runs", "error: --out /proc/self/runs: a run folder cannot be written there ("),
])
def test_the_lab_refuses_a_run_folder_it_cannot_write_in_one_line(out, says):
    done = run("model.lab", "induction", "--out", out, "--steps", "1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines()[-1].startswith(says) and "Traceback" not in done.stderr, done.stderr


def test_bench_refuses_a_module_it_does_not_have():
    done = run("bench", "--only", "nosuch", "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert "error: no benchmark module named nosuch; the modules are: classroom, " in done.stderr, done.stderr


@pytest.mark.parametrize("threads, says", [
    ("-5", "error: argument --threads: -5 threads: give 0 (torch's default) to 256 (see --help)"),
    ("two", "error: argument --threads: 'two' is not a whole number (see --help)"),
])
def test_train_refuses_a_thread_count_torch_cannot_take_before_training(threads, says):
    """Before: `--threads -5` raised torch's RuntimeError as a traceback (after the corpus was read)."""
    done = run("model.train", "coref_encoder", "--threads", threads)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.strip() == says, done.stderr
