"""finetune_cls: text classification from [CLS] on the pre-trained general_encoder (BERT's sentence-level head):
a WordNet example sentence with the word it illustrates replaced by [MASK]; which part of speech was the word
(adjective, adverb, noun, verb; the file of its synset, model/data/wordnet_masked.py)? The answer is in the order
and the kind of the words around the gap, what masked-language pre-training learned to read.

Baselines on the same split and the same training examples: always the most frequent class, a bag of words (word
counts, multinomial logistic regression, scikit-learn), and the same with word pairs (bigrams) added, a baseline
that sees some word order. Held out: the examples whose WordNet document the pre-training corpus held out. Time:
about 6 minutes of CPU time on one thread (both runs and the measures)."""

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.linear_model import LogisticRegression

from model.data import bpe, wordnet_masked
from model.tasks import finetune_inputs
from model.training import finetune
from model.training.recipes import _finetune

NAME = "finetune_cls"
RECIPE = dict(_finetune.COMMON, steps=1600, lr=1e-3, max_pieces=64, train_embeddings=True,
              trained="full: the head and every encoder weight; frozen: the head alone",
              task="WordNet example sentence, its word masked -> the word's part of speech",
              data="model.data.wordnet_masked (wordnet-base)")


def examples(tok, masked, max_pieces: int) -> list[dict]:
    """[CLS] sentence with [MASK] [SEP] (cut to max_pieces) and the class id, one dict per example."""
    index = {label: i for i, label in enumerate(wordnet_masked.LABELS)}
    return [{"ids": finetune_inputs.single(tok, m.text, max_pieces, masks=True)[0], "target": index[m.label],
             "text": m.text} for m in masked]


def accuracy(model, items: list[dict]) -> dict:
    logits = finetune.predict(model, items)
    return {"acc": float(np.mean([int(np.argmax(row)) == e["target"] for row, e in zip(logits, items)]))}


def data(r: dict) -> tuple[list[dict], list[dict], list[dict]]:
    """(train, val, heldout) examples; val is a fixed sample of the training sentences, never trained on."""
    train, heldout = wordnet_masked.split()
    tok = bpe.load()
    return (*_finetune.split_off_val(examples(tok, train, r["max_pieces"]), r["val_size"], r["seed"]),
            examples(tok, heldout, r["max_pieces"]))


def counted(train: list[dict], heldout: list[dict], ngrams: int) -> float:
    """Held-out accuracy of logistic regression on word counts (words, and word pairs when ngrams is 2)."""
    words = CountVectorizer(lowercase=True, ngram_range=(1, ngrams))
    fit = LogisticRegression(max_iter=1000).fit(words.fit_transform([e["text"] for e in train]),
                                                [e["target"] for e in train])
    predicted = fit.predict(words.transform([e["text"] for e in heldout]))
    return round(float(np.mean(predicted == np.array([e["target"] for e in heldout]))), 4)


def baselines(train: list[dict], heldout: list[dict]) -> dict:
    """Majority class, bag of words and bag of words and word pairs, fit on the training texts, scored on the
    held-out."""
    return {"cls_baseline_majority": _finetune.majority_share(train, heldout),
            "cls_baseline_bow": counted(train, heldout, 1), "cls_baseline_bow_bigrams": counted(train, heldout, 2)}


def metrics(models: dict, train: list[dict], heldout: list[dict]) -> dict:
    out = _finetune.variant_scores(models, heldout, accuracy, {"acc": "cls_acc_heldout"})
    out.update(baselines(train, heldout))
    out["cls_margin_over_better_baseline"] = round(
        out["cls_acc_heldout"] - max(out["cls_baseline_majority"], out["cls_baseline_bow"]), 4)
    out["cls_margin_over_bigrams"] = round(out["cls_acc_heldout"] - out["cls_baseline_bow_bigrams"], 4)
    out["heldout_examples"] = len(heldout)
    return out


FINE_TUNING = _finetune.FineTuning(NAME, "cls", wordnet_masked.LABELS, RECIPE, data, accuracy, metrics)
train, evaluate = FINE_TUNING.train, FINE_TUNING.evaluate        # the recipe protocol of model/training/recipes
