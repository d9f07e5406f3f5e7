"""Training-lab figures: what a lesson training in the background costs another session. The explorer page's rerun
(AppTest, its cached run cleared, a 128-token text, threads as app.py sets them) is timed on the wall clock idle,
then while the induction lesson trains in its child process started through the job queue as the page starts it
(one thread, lower priority), then idle again; lab_other_session_rerun_ratio = median while training ÷ median idle
(goal ≤ 2). Also the child's training speed meanwhile."""
import statistics
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import torch
from threadpoolctl import threadpool_limits

from bench._timing import wall_ms
from bench.explorer import DEFAULT, ROOT, explorer_page, text_of
from model import checkpoints
from model.data import text_input
from model.lab import lessons
from runtime import job_queue

START_TIMEOUT_S = 300        # the child's first progress line (torch's import on a busy machine)


def _explorer_rerun():
    """A function that reruns the explorer page once, its model run not cached."""
    from app_pages import _runs
    model, meta = checkpoints.load(DEFAULT)
    at = explorer_page()
    at.session_state["text_model"] = DEFAULT
    at.session_state["explorer_text"] = text_of(text_input.tokenizer_of(meta), min(128, model.config.max_len),
                                                text_input.rule_of(meta))

    def once():
        _runs.explorer_run.clear()
        _runs.explorer_word_weights.clear()
        at.run()
    once()
    return once


def run(quick: bool) -> dict:
    if DEFAULT not in checkpoints.shipped():
        return {"lab_other_session_rerun_ratio": None, "lab_other_session_model": f"no {DEFAULT} in assets/"}
    from app_pages.views.training_lab import command
    repeats = 3 if quick else 7
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1, user_api="blas"), TemporaryDirectory(prefix="attention-lab-bench-") as tmp:
            once = _explorer_rerun()
            idle = [wall_ms(once, 1) for _ in range(repeats)]
            lesson = lessons.LESSONS["induction"]
            job = job_queue.QUEUE.submit(command(lesson, lesson.defaults, Path(tmp), resume=False), owner="bench:lab",
                                    what="lab", cwd=ROOT)
            try:
                deadline = time.monotonic() + START_TIMEOUT_S
                while not any(r.get("event") == "progress" for r in job.rows) and not job.finished \
                        and time.monotonic() < deadline:
                    job.wait(1)
                if job.state != job_queue.RUNNING:
                    return {"lab_other_session_rerun_ratio": None, "lab_error": job.error or "the lesson did not start"}
                busy = [wall_ms(once, 1) for _ in range(repeats)]
                speed = [r["tokens_per_s"] for r in job.rows if r.get("event") == "progress"]
            finally:
                job.cancel("benchmark done")
            idle += [wall_ms(once, 1) for _ in range(repeats)]
    finally:
        torch.set_num_threads(before)
    return {"lab_other_session_rerun_ratio": statistics.median(busy) / statistics.median(idle),
            "lab_other_session_rerun_idle_ms": statistics.median(idle),
            "lab_other_session_rerun_training_ms": statistics.median(busy),
            "lab_training_tokens_per_s": speed[-1] if speed else None}
