"""incontext_copy: the training lab's induction lesson (model/lab/lessons.py) run once with a fixed seed and shipped:
a two-layer, attention-only decoder with one head per layer (d_model 64, learned positions, 32 positions) that reads
random syllables in which a span comes back later, and learns to copy the second copy from the first.

Time: the lesson's 2500 steps, one to four minutes of one CPU thread. `python -m model.train incontext_copy`.
Evaluation (model/analysis/incontext.py): next-token accuracy on the second copy of the repeated span in 512 held-out
prompts drawn from a seed no lab run uses (incontext_copy_acc), the same on the first copy (chance: nothing earlier
tells the next token), both by offset inside the copy; the best induction and previous-token heads by the shared
scorer (model/analysis/head_scores.py); the copy accuracy with each of those heads zeroed."""
import tempfile
import time

import torch

from model import checkpoints
from model.analysis import incontext
from model.lab import lessons, run

NAME = "incontext_copy"
LESSON = "induction"


def train(seed: int = 0, **changes) -> dict:
    """Run the lab's induction lesson (its default settings, this seed; tests may change the steps) on one thread
    and write assets/incontext_copy.*; returns the metrics."""
    torch.set_num_threads(1)
    lesson = lessons.LESSONS[LESSON]
    settings = lesson.replace(seed=seed, **changes)
    lessons.check(lesson, settings)
    t0 = time.process_time()
    with tempfile.TemporaryDirectory(prefix="attention-lab-") as folder:
        figures = run.train(lesson, settings, folder)
        model, lab_meta = checkpoints.load(run.model_name(lesson), assets=folder)
    cpu_s = round(time.process_time() - t0, 1)
    metrics = incontext.measure(model, lesson.data)
    checkpoints.save(NAME, model, {
        "arch": lab_meta["arch"], "config": lab_meta["config"], "modality": "symbols",
        "tokenizer": lab_meta["tokenizer"], "text_input": lab_meta["text_input"],
        "lab": {"lesson": LESSON, "settings": settings.to_dict(), "data": lesson.data, "figures": figures},
        "recipe": {"lesson": LESSON, "seed": seed, "train_cpu_seconds": cpu_s,
                   "command": checkpoints.retrain_hint(NAME)},
        "metrics": metrics})
    print({k: v for k, v in metrics.items() if not isinstance(v, list)}, flush=True)
    return metrics


def task() -> dict:
    """The lesson's data sizes (vocabulary, prompt length, span lengths)."""
    return lessons.LESSONS[LESSON].data


def evaluate() -> dict:
    model, _ = checkpoints.load(NAME)
    return incontext.measure(model, task())
