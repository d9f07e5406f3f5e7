"""finetune_cls: text classification from [CLS] on the pre-trained general_encoder (BERT's sentence-level head):
which kind of thing does a WordNet noun definition define (act, animal, artifact, body, food, location, person,
plant, substance; its lexicographer file, model/data/wordnet_classes.py)?

Baselines on the same split and the same training examples: always the most frequent class, and a bag of words
(word counts, multinomial logistic regression, scikit-learn). Held out: the definitions whose WordNet document the
pre-training corpus held out. Time: about 6 minutes of CPU time on one thread (both runs and the measures)."""
from collections import Counter
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression

from model.data import bpe, wordnet_classes
from model.tasks import finetuned
from model.training import finetune
from model.training import real_text_batches as rtb
from model.training.recipes import _finetune

NAME = "finetune_cls"
RECIPE = dict(_finetune.COMMON, steps=1600, max_pieces=64, task="WordNet noun definition -> lexicographer file",
              data="model.data.wordnet_classes (wordnet-base)")


def examples(tok, glosses, max_pieces: int) -> list[dict]:
    """[CLS] definition [SEP] (cut to max_pieces) and the class id, one dict per gloss."""
    index = {label: i for i, label in enumerate(wordnet_classes.LABELS)}
    ids = rtb.encode_texts(tok, [g.definition for g in glosses])
    return [{"ids": [bpe.CLS] + i[:max_pieces - 2] + [bpe.SEP], "target": index[g.label], "text": g.definition}
            for i, g in zip(ids, glosses)]


def accuracy(model, items: list[dict]) -> dict:
    logits = finetune.predict(model, items)
    return {"acc": float(np.mean([int(np.argmax(row)) == e["target"] for row, e in zip(logits, items)]))}


def data(r: dict) -> tuple[list[dict], list[dict], list[dict]]:
    """(train, val, heldout) examples; val is a fixed sample of the training definitions, never trained on."""
    train, heldout = wordnet_classes.split()
    tok = bpe.load()
    rng = np.random.default_rng(r["seed"])
    order = rng.permutation(len(train))
    val = set(order[:r["val_size"]].tolist())
    every = examples(tok, train, r["max_pieces"])
    return ([e for i, e in enumerate(every) if i not in val], [every[i] for i in sorted(val)],
            examples(tok, heldout, r["max_pieces"]))


def baselines(train: list[dict], heldout: list[dict]) -> dict:
    """Majority class and bag-of-words logistic regression, fit on the training texts, scored on the held-out."""
    y, y_test = [e["target"] for e in train], [e["target"] for e in heldout]
    majority = Counter(y).most_common(1)[0][0]
    words = CountVectorizer(lowercase=True)
    bow = LogisticRegression(max_iter=1000).fit(words.fit_transform([e["text"] for e in train]), y)
    predicted = bow.predict(words.transform([e["text"] for e in heldout]))
    return {"cls_baseline_majority": round(float(np.mean(np.array(y_test) == majority)), 4),
            "cls_baseline_bow": round(float(np.mean(predicted == np.array(y_test))), 4)}


def metrics(models: dict, train: list[dict], heldout: list[dict]) -> dict:
    out = {"cls_acc_heldout": round(accuracy(models["full"], heldout)["acc"], 4),
           "cls_acc_heldout_frozen": round(accuracy(models["frozen"], heldout)["acc"], 4)}
    out.update(baselines(train, heldout))
    out["cls_margin_over_better_baseline"] = round(
        out["cls_acc_heldout"] - max(out["cls_baseline_majority"], out["cls_baseline_bow"]), 4)
    out["heldout_examples"] = len(heldout)
    return out


def train(seed: int = 0, folder: Path | None = None, assets: Path | None = None, **overrides) -> dict:
    """Fine-tune (full and frozen) and write assets/finetune/finetune_cls.*; overrides change RECIPE entries."""
    r = {**RECIPE, **overrides, "seed": seed}
    train_set, val, heldout = data(r)
    task = finetune.Task(NAME, "cls", wordnet_classes.LABELS, train_set, val, accuracy)
    return _finetune.fit_and_save(NAME, task, r, lambda m: metrics(m, train_set, heldout), heldout, folder, assets)


def evaluate() -> dict:
    """Metrics of the shipped fine-tuned models on the held-out definitions, baselines refit."""
    ft = finetuned.load(NAME)
    train_set, _val, heldout = data(ft.meta["recipe"])
    found = metrics({"full": ft.full, "frozen": ft.frozen}, train_set, heldout)
    return {**found, **{k: ft.meta["metrics"][k] for k in ("attention_change_max", "attention_change_head")}}
