"""relative_digits: a one-layer encoder with no absolute positions and a learned relative-position bias (one
scalar per head for each offset −8..+8, farther keys sharing the end columns; model/engine/relative_bias.py),
trained on the offset task of model/data/offset_digits.py: at each position, the digit one to the left minus the
digit two to the right, mod 10. The only way to find those two digits is the bias table, so what it learns is the
textbook's "a parameter learned per offset" made visible.

Rows of 8 to 48 digits in turn, so the table has to work at any length (it is checked at lengths never trained on).
Time: about two minutes of CPU time on one thread (at most RECIPE["time_budget_s"]).
`python -m model.train relative_digits --threads 1`.
Evaluation: accuracy on fresh rows, with the table and with it left out (positions off), and the share of each
head's attention that falls on the two offsets the task reads.
"""
import time

import torch
import torch.nn.functional as F

from model import checkpoints
from model.analysis.learned_bias import accuracy, offset_share
from model.data import offset_digits as task
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.training.loop import fit, seed_everything

NAME = "relative_digits"
ARCH = dict(kind="encoder", d_model=64, n_heads=4, n_layers=1, d_ff=256, max_len=task.MAX_DIGITS, norm="pre",
            pos_encoding="relative", max_offset=8)
RECIPE = dict(steps=3000, tokens_per_step=1536, lengths=(8, 12, 16, 24, 32, 48), lr=3e-3, weight_decay=0.01,
              time_budget_s=300, task=task.RULE, offsets=list(task.OFFSETS))
EVAL = dict(seed=12_345, rows=512, length=24, other_lengths=(6, 11, 64))


def config() -> ModelConfig:
    return ModelConfig(vocab_size=task.VOCAB, **ARCH)


def loss_fn(model, batch):
    x, y = batch
    logits = model(x)                                                      # (B, T, 10)
    return F.cross_entropy(logits.flatten(0, 1), y.flatten(), ignore_index=task.IGNORE), int(x.numel())


def train(seed: int = 0, **overrides) -> dict:
    """Train from scratch and write assets/relative_digits.*; returns the metrics."""
    r = {**RECIPE, **overrides, "seed": seed}
    seed_everything(seed)
    model = Transformer(config())
    gen = torch.Generator().manual_seed(seed)

    def next_batch(step):                  # rows of every length in turn: the bias must work at any length
        n = r["lengths"][step % len(r["lengths"])]
        return task.batch(r["tokens_per_step"] // n, n, gen)
    t0 = time.process_time()
    losses = fit(model, next_batch, loss_fn, r["steps"], lr=r["lr"], weight_decay=r["weight_decay"], label=NAME,
                 time_budget_s=r["time_budget_s"])
    cpu_s = round(time.process_time() - t0, 1)
    metrics = measure(model.eval())
    checkpoints.save(NAME, model, {"arch": "model.engine.transformer:Transformer", "config": model.config.to_dict(),
                                   "tokenizer": None, "modality": "digits",
                                   "task": {"rule": task.RULE, "offsets": list(task.OFFSETS), "vocab": task.VOCAB},
                                   "recipe": {**r, "steps_done": len(losses), "final_loss": losses[-1],
                                              "train_cpu_seconds": cpu_s},
                                   "metrics": metrics})
    print(metrics, flush=True)
    return metrics


def measure(model) -> dict:
    """Accuracy on fresh rows of EVAL["length"] digits with and without the bias, at lengths never trained on, and
    each head's attention on the task's two offsets."""
    gen = torch.Generator().manual_seed(EVAL["seed"])
    x, y = task.batch(EVAL["rows"], EVAL["length"], gen)
    share = offset_share(model, x)
    other = {n: task.batch(EVAL["rows"], n, gen) for n in EVAL["other_lengths"]}
    return {"accuracy": round(accuracy(model, x, y), 4),
            "accuracy_without_the_bias": round(accuracy(model, x, y, positions=False), 4),
            "chance": round(1 / task.VOCAB, 4),
            "accuracy_at_untrained_lengths": {str(n): round(accuracy(model, *b), 4) for n, b in other.items()},
            "weight_on_task_offsets_per_head": [round(float(s), 4) for s in share.sum(1)],
            "eval_rows": EVAL["rows"], "eval_length": EVAL["length"]}


def evaluate() -> dict:
    model, _ = checkpoints.load(NAME)
    return measure(model)
