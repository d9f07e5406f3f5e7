"""The course world: a generated English corpus of Winograd-style pronoun sentences (Levesque et al. 2012), in which
the predicate after the pronoun, never the word order, decides its referent (model/data/course_schemas.py);
sentences whose pronoun gender, number or syntax settles (model/data/course_agreement.py, with the people and
things of model/data/course_people.py); multi-sentence passages where "they/their" refer across sentences; single
facts and ordinary sentences.

Splits: noun pairs, names and nouns are divided train / val / held-out, and two frames per schema or cue are held
out; the textbook paragraph and the classic lecture examples never appear in training data.
Texts are written as a person types them ("The cafe ... food.").
Indices (`Ref.pronoun_index`, `Ref.antecedent_index`) count words of `word_tokenizer.split_words(text)`,
without [CLS]; add 1 when the text is encoded with [CLS] in front.
"""
import random
import re
from dataclasses import replace

from model.data import course_agreement
from model.data.course_samples import CUES, Ref, Sample, natural
from model.data.course_schemas import (
    CLASSIC_PAIRS,
    CORE_NOUNS,
    GROWTH,
    HELDOUT_FRAMES,
    MAX_GROWN,
    NOT_GROWN,
    SCHEMAS,
    Schema,
    pair_splits,
    schema_sentence,
    split_spec,
)
from model.data.word_tokenizer import WordTokenizer, split_words
from model.engine.messages import N_

__all__ = ["CLASSIC_PAIRS", "CORE_NOUNS", "CUES", "GROWTH", "HELDOUT_FRAMES", "MAX_GROWN", "NOT_GROWN", "SCHEMAS",
           "Schema", "Ref", "Sample", "natural", "pair_splits", "schema_sentence", "split_spec", "split_words"]

PARAGRAPH = ("The restaurant refused to serve me a ham sandwich because it only cooks vegetarian food. "
             "In the end, they just gave me two slices of bread. "
             "Their ambiance was just as good as the food and service.")


# passages: sentence 1 is a venue_dish sentence; "they" in sentence 2 is the establishment; sentence 3
# points "they"/"their" at the establishment or at the plural food of sentence 2.
PLURAL_FOODS = (("two slices of bread", "slices"), ("some fries", "fries"), ("three cookies", "cookies"),
                ("a few olives", "olives"), ("some chips", "chips"), ("two rolls", "rolls"),
                ("some noodles", "noodles"), ("four dumplings", "dumplings"), ("some muffins", "muffins"),
                ("two pancakes", "pancakes"), ("a few crackers", "crackers"), ("some biscuits", "biscuits"))
AGENT_SENTENCES = ("in the end , they just gave me {f} .", "after that , they brought us {f} .",
                   "later , they offered me {f} .", "instead , they served us {f} .",
                   "in the end , they only sold me {f} .")
THIRD_A = (("they", "were very friendly"), ("they", "apologized twice"), ("they", "closed early"),
           ("their", "ambiance was just as good as the food and service"), ("their", "staff was kind"),
           ("their", "prices were fair"), ("their", "chef was very polite"), ("they", "were busy"))
THIRD_F = (("they", "were stale"), ("they", "were too dry"), ("they", "were still warm"),
           ("they", "were burnt"), ("their", "crust was too hard"), ("their", "edges were burnt"),
           ("they", "tasted of nothing"), ("their", "taste was bland"))

PEOPLE = ("woman", "man", "girl", "boy", "chef", "waiter", "teacher", "student", "farmer", "child")
VERBS = ("ate", "saw", "chased", "followed", "fed", "helped", "watched", "found", "bit", "liked")
ORDINARY_TEMPLATES = ("the {x} {v} the {y} .", "the {x} {v} the {y} near the {place} .",
                      "the {x} ate a {dish} at the {venue} .", "the {x} found a {thing} by the {place} .")
FACT_TEMPLATES = ("the {a} {p} .", "today the {a} {p} .", "the {b} {p} .", "yesterday the {b} {p} .")


# shares of the training mixture: schema sentences (a quarter with the noun repeated), passages, facts and
# ordinary sentences, and the agreement sentences of each cue
MIXTURE = {"schema": 0.30, "passage": 0.15, "plain": 0.10, "gender": 0.18, "number": 0.14, "structure": 0.13}


def _typed(samples: list[Sample]) -> list[Sample]:
    return [replace(s, text=natural(s.text)) for s in samples]


def passage(a: str, b: str, frame: int, side: str, pred: int, rng: random.Random) -> Sample:
    """Three sentences like the textbook paragraph, with three pronoun references."""
    first = schema_sentence("venue_dish", frame, a, b, side, pred, rng.choice(SCHEMAS["venue_dish"].b_modifiers))
    food, food_word = rng.choice(PLURAL_FOODS)
    second = rng.choice(AGENT_SENTENCES).format(f=food)
    pron, pred3 = rng.choice(THIRD_A if rng.random() < 0.5 else THIRD_F)
    third = f"{pron} {pred3} ."
    text = f"{first.text} {second} {third}"
    words = split_words(text)
    n1, n2 = len(split_words(first.text)), len(split_words(second))
    they = n1 + split_words(second).index("they")
    food_at = n1 + split_words(second).index(food_word)
    refs = [first.refs[0], Ref(they, words.index(a), "they", a)]
    if (pron, pred3) in THIRD_A:
        refs.append(Ref(n1 + n2, words.index(a), pron, a))
    else:
        refs.append(Ref(n1 + n2, food_at, pron, food_word))
    return Sample(text, tuple(refs), "venue_dish", frame, (a, b), first.pair_id + f"|{second}|{third}",
                  "passage")


def repeat_noun(sample: Sample) -> Sample:
    """The same sentence with the pronoun replaced by its antecedent (plain text, no reference)."""
    words = split_words(sample.text)
    r = sample.refs[0]
    words[r.pronoun_index] = f"the {r.antecedent}"
    return Sample(" ".join(words), (), sample.schema, sample.frame, sample.pair, kind="repeat")


def fact(rng: random.Random) -> Sample:
    name = rng.choice(sorted(SCHEMAS))
    s = SCHEMAS[name]
    t = rng.choice(FACT_TEMPLATES)
    p = rng.choice(s.a_preds if "{a}" in t else s.b_preds)
    return Sample(t.format(a=rng.choice(s.a_nouns), b=rng.choice(s.b_nouns), p=p), (), kind="fact")


def ordinary(rng: random.Random) -> Sample:
    """'the woman ate the raccoon .' and friends: who did what to whom depends on word order."""
    beings = PEOPLE + SCHEMAS["animal_place"].a_nouns
    x, y = rng.sample(beings, 2)
    if rng.random() < 0.1:          # the textbook's order example, in both orders
        x, y = rng.sample(("woman", "raccoon"), 2)
        return Sample(f"the {x} ate the {y} .", (), kind="ordinary")
    place, venue = rng.choice(SCHEMAS["animal_place"].b_nouns), rng.choice(SCHEMAS["venue_dish"].a_nouns)
    dish, thing = rng.choice(SCHEMAS["venue_dish"].b_nouns), rng.choice(SCHEMAS["object_container"].a_nouns)
    template = rng.choice(ORDINARY_TEMPLATES)
    return Sample(template.format(x=x, y=y, v=rng.choice(VERBS), place=place, venue=venue, dish=dish, thing=thing),
                  (), kind="ordinary")


def _random_schema_sample(split: str, rng: random.Random) -> Sample:
    name = rng.choice(sorted(SCHEMAS))
    pairs, frames = split_spec(split, name)
    a, b = rng.choice(pairs)
    mods = SCHEMAS[name].b_modifiers
    return schema_sentence(name, rng.choice(frames), a, b, rng.choice("ab"), rng.randrange(10), rng.choice(mods))


def _random_passage(split: str, rng: random.Random) -> Sample:
    pairs, frames = split_spec(split, "venue_dish")
    a, b = rng.choice(pairs)
    return passage(a, b, rng.choice(frames), rng.choice("ab"), rng.randrange(10), rng)


def _mixture_sample(kind: str, rng: random.Random) -> Sample:
    """One training sample of a MIXTURE kind."""
    if kind == "schema":
        s = _random_schema_sample("train", rng)
        return repeat_noun(s) if rng.random() < 0.25 else s
    if kind == "plain":
        return fact(rng) if rng.random() < 0.6 else ordinary(rng)
    if kind == "passage":
        return _random_passage("train", rng)
    return course_agreement.training_sample(kind, rng)


def training_samples(n: int, seed: int = 0, mixture: dict | None = None) -> list[Sample]:
    """n training samples drawn by the shares of mixture (default MIXTURE): only training pairs, names, nouns and
    frames; no classic example."""
    mixture = MIXTURE if mixture is None else mixture
    if set(mixture) - set(MIXTURE) or not mixture:
        raise ValueError(f"mixture keys must be among {', '.join(MIXTURE)}, got {', '.join(mixture) or 'none'}")
    rng = random.Random(seed)
    kinds, weights = list(mixture), list(mixture.values())
    out = [_mixture_sample(rng.choices(kinds, weights)[0], rng) for _ in range(n)]
    return _typed([s for s in out if " ".join(split_words(s.text)) not in _CLASSIC_TEXTS])


def eval_samples(split: str, n_pairs: int = 150, seed: int = 0, passages: bool = False) -> list[Sample]:
    """Minimal pairs for "val", "heldout_pairs" or "heldout_frames": 2 * n_pairs samples, each pair the
    same words but the predicate, so its two sides point the pronoun at different nouns."""
    if split == "train":
        raise ValueError("eval_samples is for val / heldout_pairs / heldout_frames")
    rng = random.Random(f"{split}-{seed}-{passages}")
    out = []
    for _ in range(n_pairs):
        if passages:
            pairs, frames = split_spec(split, "venue_dish")
            (a, b), f, pred = rng.choice(pairs), rng.choice(frames), rng.randrange(10)
            state = rng.getstate()
            for side in "ab":
                rng.setstate(state)      # same second and third sentence on both sides
                out.append(passage(a, b, f, side, pred, rng))
            continue
        name = rng.choice(sorted(SCHEMAS))
        pairs, frames = split_spec(split, name)
        (a, b), f, pred = rng.choice(pairs), rng.choice(frames), rng.randrange(10)
        mod = rng.choice(SCHEMAS[name].b_modifiers)
        out += [schema_sentence(name, f, a, b, side, pred, mod) for side in "ab"]
    return _typed(out)


def lm_texts(n: int, seed: int = 0) -> list[str]:
    """n ordinary course-world texts (sentences and passages) for language-model training."""
    return [s.text for s in training_samples(n, seed)]


def agreement_samples(split: str, n_pairs: int = 150, seed: int = 0, cues: tuple = CUES) -> list[Sample]:
    """Minimal pairs of the agreement sentences (course_agreement.eval_pairs) of each cue, n_pairs per cue, as
    typed."""
    return _typed([s for cue in cues for s in course_agreement.eval_pairs(cue, split, n_pairs, seed)])


# ---- curated classic examples for the page (never in training); titles shown translated -------------
CLASSICS = (
    (N_("The textbook paragraph"), PARAGRAPH),
    (N_("The tired animal"), "The animal didn't cross the street because it was too tired."),
    (N_("The wide street"), "The animal didn't cross the street because it was too wide."),
    (N_("The big trophy"), "The trophy didn't fit into the suitcase because it was too big."),
    (N_("The small suitcase"), "The trophy didn't fit into the suitcase because it was too small."),
    (N_("The vegetarian restaurant"), "The restaurant refused to serve me a ham sandwich because it only cooks "
                                      "vegetarian food."),
    (N_("The salty sandwich"), "The restaurant refused to serve me a ham sandwich because it was too salty."),
)
# (title, text A, text B, pronoun, antecedent A, antecedent B): one word or phrase flips the referent
MINIMAL_PAIRS = (
    (N_("tired / wide"), CLASSICS[1][1], CLASSICS[2][1], "it", "animal", "street"),
    (N_("big / small"), CLASSICS[3][1], CLASSICS[4][1], "it", "trophy", "suitcase"),
    (N_("vegetarian food / too salty"), CLASSICS[5][1], CLASSICS[6][1], "it", "restaurant", "sandwich"),
)
_CLASSIC_TEXTS = {" ".join(split_words(t)) for _, t in CLASSICS} | {" ".join(split_words(PARAGRAPH))}
# where each pronoun of the classic texts points: (text, pronoun occurrence) -> antecedent
CLASSIC_ANSWERS = {
    PARAGRAPH: {"it": "restaurant", "they": "restaurant", "their": "restaurant"},
    CLASSICS[1][1]: {"it": "animal"}, CLASSICS[2][1]: {"it": "street"},
    CLASSICS[3][1]: {"it": "trophy"}, CLASSICS[4][1]: {"it": "suitcase"},
    CLASSICS[5][1]: {"it": "restaurant"}, CLASSICS[6][1]: {"it": "sandwich"},
}
PRONOUNS = ("it", "they", "their", "them", "its", "he", "she", "him", "her", "his", "hers", "theirs", "itself",
            "himself", "herself", "themselves")


def classic_refs(text: str) -> list[Ref]:
    """References of a classic text, from CLASSIC_ANSWERS (first occurrence of the antecedent)."""
    words = split_words(text)
    answers = CLASSIC_ANSWERS[text]
    return [Ref(i, words.index(answers[w]), w, answers[w]) for i, w in enumerate(words) if w in answers]


def tokenizer() -> WordTokenizer:
    """The course world's word-level tokenizer (the 328-word vocabulary of the first models): every word of
    the hand-picked lexicon, the templates and the classic examples; a WordNet-grown noun is [UNK] to it."""
    pieces = [PARAGRAPH, *[t for _, t in CLASSICS], *PEOPLE, *VERBS, *FACT_TEMPLATES, *AGENT_SENTENCES,
              *ORDINARY_TEMPLATES]
    pieces += [f for f, _ in PLURAL_FOODS] + [f"{p} {q}" for p, q in THIRD_A + THIRD_F]
    pieces = [re.sub(r"\{[a-z]+\}", " ", p) for p in pieces]
    for name, s in SCHEMAS.items():
        pieces += [*CORE_NOUNS[name][0], *CORE_NOUNS[name][1], *s.a_preds, *s.b_preds, *s.b_modifiers, *s.frames]
    return WordTokenizer.build(pieces)


def core_words() -> set[str]:
    """The words tokenizer() knows (no special token)."""
    return {w for w in tokenizer().vocab if not w.startswith("[")}

