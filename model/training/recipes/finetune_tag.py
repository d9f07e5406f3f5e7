"""finetune_tag: token tagging on the pre-trained general_encoder (BERT's token-level head): the entity type of
every word of course-world sentences (O, VENUE, DISH, ANIMAL, PLACE, OBJECT, CONTAINER, PERSON;
model/data/course_tags.py), read from each word's first piece. Held out: sentences made only of nouns no training
sentence holds, so a word's type must come from pre-training and context.

Scores count the words with letters (not punctuation): all of them (`tag_acc_heldout`) and the nouns the generator
placed (`..._entities`). Baselines on the same split: always the most frequent tag (O), and each word's most frequent
training tag (the most frequent tag for a word never seen). Time: about 5 minutes of CPU time on one thread."""
from collections import Counter, defaultdict

import numpy as np

from model.data import bpe, course_tags
from model.training import finetune
from model.training.recipes import _finetune

NAME = "finetune_tag"
RECIPE = dict(_finetune.COMMON, steps=1200, train_sentences=12_000, heldout_sentences=1_000,
              task="entity type of each word", data="model.data.course_tags (course world, held-out nouns)")


def example(tok, sentence: course_tags.Typed) -> dict:
    """[CLS] text [SEP], the tag id at each word's first piece (-100 elsewhere and on punctuation), the words."""
    enc = tok.encode(sentence.text, add_cls_sep=True)
    target, words = [-100] * len(enc.ids), []
    for (a, b), tag in zip(sentence.spans, sentence.tags):
        first = next(i for i, (s, e) in enumerate(enc.spans) if e > a and s < b and enc.ids[i] >= len(bpe.SPECIALS))
        if sentence.text[a:b].isalpha():
            target[first] = course_tags.TAGS.index(tag)
            words.append((sentence.text[a:b].lower(), first, tag))
    return {"ids": enc.ids, "target": target, "words": words, "text": sentence.text}


def data(r: dict) -> tuple[list[dict], list[dict], list[dict]]:
    tok = bpe.load()
    every = [example(tok, s) for s in course_tags.sentences("train", r["train_sentences"] + r["val_size"], r["seed"])]
    heldout = [example(tok, s) for s in course_tags.sentences("heldout", r["heldout_sentences"], r["seed"])]
    return every[r["val_size"]:], every[:r["val_size"]], heldout


def word_accuracy(model, items: list[dict]) -> dict:
    """Accuracy over every scored word, and over the entity words (tag not O)."""
    logits = finetune.predict(model, items)
    hits = [(int(np.argmax(row[i])) == course_tags.TAGS.index(tag), tag != "O")
            for row, e in zip(logits, items) for _w, i, tag in e["words"]]
    return {"acc": float(np.mean([h for h, _ in hits])), "acc_entities": float(np.mean([h for h, ent in hits if ent]))}


def baselines(train: list[dict], heldout: list[dict]) -> dict:
    tags, by_word = Counter(), defaultdict(Counter)
    for e in train:
        for w, _i, tag in e["words"]:
            tags[tag] += 1
            by_word[w][tag] += 1
    majority = tags.most_common(1)[0][0]
    words = [(w, tag) for e in heldout for w, _i, tag in e["words"]]
    lookup = [(by_word[w].most_common(1)[0][0] if w in by_word else majority) == tag for w, tag in words]
    out = {"tag_baseline_majority": np.mean([tag == majority for _w, tag in words]),
           "tag_baseline_majority_entities": np.mean([tag == majority for _w, tag in words if tag != "O"]),
           "tag_baseline_lookup": np.mean(lookup),
           "tag_baseline_lookup_entities": np.mean([h for h, (_w, tag) in zip(lookup, words) if tag != "O"])}
    return {k: round(float(v), 4) for k, v in out.items()}


def metrics(models: dict, train: list[dict], heldout: list[dict]) -> dict:
    out = _finetune.variant_scores(models, heldout, word_accuracy,
                                   {"acc": "tag_acc_heldout", "acc_entities": "tag_acc_heldout_entities"})
    out.update(baselines(train, heldout))
    out["heldout_words"] = sum(len(e["words"]) for e in heldout)
    return out


FINE_TUNING = _finetune.FineTuning(NAME, "tag", course_tags.TAGS, RECIPE, data, word_accuracy, metrics)
train, evaluate = FINE_TUNING.train, FINE_TUNING.evaluate        # the recipe protocol of model/training/recipes
