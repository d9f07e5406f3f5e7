"""finetune_nsp: next-sentence prediction as BERT had it in pre-training (Devlin et al. 2019, §3.1), here taught to
the pre-trained general_encoder as a classification from [CLS]: [CLS] A [SEP] B [SEP] -> does B follow A in the
running text (IsNext) or come from another document (NotNext)? Pairs from the English fortunes of the real-text
corpus (model/data/sentence_pairs.py), held out by document. Baselines on the same split: the majority answer, and
word overlap (IsNext when A and B share at least the share of words that best splits the training pairs).
Time: about 6 minutes of CPU time on one thread."""
import re

import numpy as np

from model.data import bpe, sentence_pairs
from model.training import finetune
from model.training import real_text_batches as rtb
from model.training.recipes import _finetune

NAME = "finetune_nsp"
LABELS = ("NotNext", "IsNext")
RECIPE = dict(_finetune.COMMON, steps=1000, train_draws=3, max_sentence_pieces=40,
              task="does sentence B follow sentence A?",
              data="model.data.sentence_pairs (fortunes, held out by document)")


def examples(tok, pairs: list[sentence_pairs.Pair], max_pieces: int) -> list[dict]:
    """[CLS] A [SEP] B [SEP] (each sentence cut to max_pieces) and 1 for IsNext, 0 for NotNext."""
    a_ids = rtb.encode_texts(tok, [p.a for p in pairs])
    b_ids = rtb.encode_texts(tok, [p.b for p in pairs])
    return [{"ids": [bpe.CLS] + a[:max_pieces] + [bpe.SEP] + b[:max_pieces] + [bpe.SEP], "target": int(p.is_next),
             "a": p.a, "b": p.b} for a, b, p in zip(a_ids, b_ids, pairs)]


def accuracy(model, items: list[dict]) -> dict:
    logits = finetune.predict(model, items)
    return {"acc": float(np.mean([int(np.argmax(row)) == e["target"] for row, e in zip(logits, items)]))}


def data(r: dict) -> tuple[list[dict], list[dict], list[dict]]:
    """(train, val, heldout): train_draws draws of the training pairs (each its own NotNext coins and sentences);
    val: the first val_size pairs of another draw, left out of training."""
    tok = bpe.load()
    held_val = sentence_pairs.pairs("train", seed=r["seed"] + 1000)[:r["val_size"]]
    val_texts = {(p.a, p.b) for p in held_val}
    train = [p for d in range(r["train_draws"]) for p in sentence_pairs.pairs("train", seed=r["seed"] + d)
             if (p.a, p.b) not in val_texts]
    n = r["max_sentence_pieces"]
    return (examples(tok, train, n), examples(tok, held_val, n),
            examples(tok, sentence_pairs.pairs("heldout", seed=r["seed"]), n))


def overlap(a: str, b: str) -> float:
    """Share of B's distinct lower-case words that A holds."""
    wa, wb = set(re.findall(r"[a-z']+", a.lower())), set(re.findall(r"[a-z']+", b.lower()))
    return len(wa & wb) / max(1, len(wb))


def baselines(train: list[dict], heldout: list[dict]) -> dict:
    y = np.array([e["target"] for e in train])
    scores = np.array([overlap(e["a"], e["b"]) for e in train])
    cuts = np.unique(scores)
    best = max(cuts, key=lambda c: np.mean((scores >= c) == y))          # the threshold fit on training pairs
    y_test = np.array([e["target"] for e in heldout])
    test_scores = np.array([overlap(e["a"], e["b"]) for e in heldout])
    return {"nsp_baseline_majority": _finetune.majority_share(train, heldout),
            "nsp_baseline_overlap": round(float(np.mean((test_scores >= best) == y_test)), 4)}


def metrics(models: dict, train: list[dict], heldout: list[dict]) -> dict:
    out = _finetune.variant_scores(models, heldout, accuracy, {"acc": "nsp_acc_heldout"})
    out.update(baselines(train, heldout))
    out["heldout_pairs"] = len(heldout)
    return out


FINE_TUNING = _finetune.FineTuning(NAME, "cls", LABELS, RECIPE, data, accuracy, metrics)
train, evaluate = FINE_TUNING.train, FINE_TUNING.evaluate        # the recipe protocol of model/training/recipes
