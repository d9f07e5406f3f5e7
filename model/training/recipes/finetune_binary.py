"""finetune_binary: classification as the textbook's 12.6.2 draws it, on the pre-trained general_encoder: the final
hidden state of [CLS] goes through one linear map to one number z = w·h_[CLS] + b, σ(z) is the probability of the
second label, and training minimises binary cross-entropy −[y log σ(z) + (1 − y) log(1 − σ(z))]. The task is
finetune_cls's with two of its four classes: a WordNet example sentence with the word it illustrates replaced by
[MASK]; was the word a noun (y = 0) or a verb (y = 1)? Same sentences, same split (held out: the examples whose
WordNet document the pre-training corpus held out).

Baselines on the same split and the same training examples: always the more frequent label, and a bag of words (word
counts, logistic regression, scikit-learn). Time: about 2 minutes of CPU time on one thread (both runs and the
measures)."""

import numpy as np

from model.data import bpe, wordnet_masked
from model.tasks import finetune_inputs
from model.training import finetune
from model.training.recipes import _finetune, finetune_cls

NAME = "finetune_binary"
LABELS = ("noun", "verb")            # y = 0, y = 1: σ(z) is the probability of "verb"
RECIPE = dict(_finetune.COMMON, steps=800, lr=3e-4, max_pieces=64,
              task="WordNet example sentence, its word masked -> was the word a noun or a verb? (sigmoid, BCE)",
              data="model.data.wordnet_masked (wordnet-base), the noun and verb examples")


def examples(tok, masked, max_pieces: int) -> list[dict]:
    """[CLS] sentence with [MASK] [SEP] (cut to max_pieces) and y (1 for a verb), for the noun and verb examples."""
    return [{"ids": finetune_inputs.single(tok, m.text, max_pieces, masks=True)[0], "target": LABELS.index(m.label),
             "text": m.text} for m in masked if m.label in LABELS]


def accuracy(model, items: list[dict]) -> dict:
    """Share of examples where σ(z) > 0.5 exactly when y = 1 (z > 0)."""
    logits = finetune.predict(model, items)
    return {"acc": float(np.mean([int(row[0] > 0) == e["target"] for row, e in zip(logits, items)]))}


def data(r: dict) -> tuple[list[dict], list[dict], list[dict]]:
    """(train, val, heldout) examples; val is a fixed sample of the training sentences, never trained on."""
    train, heldout = wordnet_masked.split()
    tok = bpe.load()
    return (*_finetune.split_off_val(examples(tok, train, r["max_pieces"]), r["val_size"], r["seed"]),
            examples(tok, heldout, r["max_pieces"]))


def baselines(train: list[dict], heldout: list[dict]) -> dict:
    """The more frequent label and a bag of words, fit on the training texts, scored on the held-out."""
    return {"binary_baseline_majority": _finetune.majority_share(train, heldout),
            "binary_baseline_bow": finetune_cls.counted(train, heldout, 1)}


def metrics(models: dict, train: list[dict], heldout: list[dict]) -> dict:
    out = _finetune.variant_scores(models, heldout, accuracy, {"acc": "binary_acc_heldout"})
    out.update(baselines(train, heldout))
    out["binary_margin_over_better_baseline"] = round(
        out["binary_acc_heldout"] - max(out["binary_baseline_majority"], out["binary_baseline_bow"]), 4)
    out["heldout_examples"] = len(heldout)
    return out


FINE_TUNING = _finetune.FineTuning(NAME, "binary", LABELS, RECIPE, data, accuracy, metrics)
train, evaluate = FINE_TUNING.train, FINE_TUNING.evaluate        # the recipe protocol of model/training/recipes
