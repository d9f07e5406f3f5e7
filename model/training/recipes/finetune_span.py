"""finetune_span: span question answering on the pre-trained general_encoder (BERT's SQuAD head): [CLS] question
[SEP] passage [SEP], two linear outputs give each token a start and an end score, and the answer is the passage
span with the highest start + end (start <= end, at most 16 pieces; model/tasks/spans.py). Passages and
questions are built from course-world sentences (model/data/course_qa.py); held out by passage: held-out passages
use only nouns no training passage holds. Scores: exact match and token F1 as in SQuAD. Time: about 6 minutes of
CPU time on one thread."""

import numpy as np

from model.data import bpe, course_qa
from model.tasks import finetune_inputs, spans
from model.training import finetune
from model.training.recipes import _finetune

NAME = "finetune_span"
RECIPE = dict(_finetune.COMMON, steps=1000, train_passages=4_000, heldout_passages=300,
              max_answer=finetune_inputs.MAX_ANSWER,
              task="answer span in a passage", data="model.data.course_qa (course world, held out by passage)")


def example(tok, q: course_qa.Question, max_pieces: int) -> dict:
    """[CLS] question [SEP] passage [SEP] with target (start, end): the first and last piece of the answer."""
    e = finetune_inputs.question(tok, q.question, q.passage, max_pieces)
    inside = [i for i, (a, b) in enumerate(e.spans) if b > q.start and a < q.end]
    return {"ids": e.ids, "input": e, "target": (e.lo + inside[0], e.lo + inside[-1]), "answer": q.answer}


def score(model, items: list[dict]) -> dict:
    logits = finetune.predict(model, items)
    found = [finetune_inputs.answer(e["input"], row)[2] for e, row in zip(items, logits)]
    return {"em": float(np.mean([spans.exact_match(f, e["answer"]) for f, e in zip(found, items)])),
            "f1": float(np.mean([spans.token_f1(f, e["answer"]) for f, e in zip(found, items)]))}


def data(r: dict) -> tuple[list[dict], list[dict], list[dict]]:
    tok = bpe.load()
    every = [example(tok, q, r["max_pieces"]) for q in course_qa.questions("train", r["train_passages"], r["seed"])]
    heldout = [example(tok, q, r["max_pieces"]) for q in course_qa.questions("heldout", r["heldout_passages"],
                                                                           r["seed"])]
    return every[r["val_size"]:], every[:r["val_size"]], heldout


def metrics(models: dict, heldout: list[dict]) -> dict:
    out = _finetune.variant_scores(models, heldout, score, {"em": "span_exact_match_heldout", "f1": "span_f1_heldout"})
    out["heldout_questions"] = len(heldout)
    return out


def _metrics(models: dict, _train: list[dict], heldout: list[dict]) -> dict:
    """metrics() in the shape the shared fine-tuning steps call it (span questions need no training set)."""
    return metrics(models, heldout)


FINE_TUNING = _finetune.FineTuning(NAME, "span", ("start", "end"), RECIPE, data, score, _metrics)
train, evaluate = FINE_TUNING.train, FINE_TUNING.evaluate        # the recipe protocol of model/training/recipes
