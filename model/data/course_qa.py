"""Short passages with questions whose answer is a span of the passage, built from the structure of course-world
sentences (SQuAD-style extractive QA, Rajpurkar et al. 2016). A passage is three sentences of different kinds;
people recur across them, so "Who ate a pie?" must find the sentence about eating, not any person. Passages of the
held-out split use only held-out nouns (model/data/course_tags.py), so no held-out passage occurs in training."""
import random
from dataclasses import dataclass

from model.data import course_world as cw
from model.data.course_tags import split_nouns, typed

HOURS = ("six", "seven", "eight", "nine", "ten", "eleven", "noon", "midnight")
PRICES = ("two", "three", "five", "ten", "twelve", "twenty", "forty", "fifty")
REASONS = cw.SCHEMAS["animal_place"].a_preds
# each kind: the sentence (slots {NAME}, NAME.1 for a second of a class), then (question, the slot answering it)
KINDS = (
    ("the {PERSON} ate a {DISH} at the {VENUE} .",
     (("who ate a {DISH} ?", "PERSON"), ("what did the {PERSON} eat ?", "DISH"),
      ("where did the {PERSON} eat the {DISH} ?", "VENUE"))),
    ("the {ANIMAL} slept by the {PLACE} because it {REASON} .",
     (("which animal slept by the {PLACE} ?", "ANIMAL"), ("where did the {ANIMAL} sleep ?", "PLACE"),
      ("why did the {ANIMAL} sleep by the {PLACE} ?", "REASON"))),
    ("the {PERSON} put the {OBJECT} in the {CONTAINER} .",
     (("who put the {OBJECT} away ?", "PERSON"), ("what did the {PERSON} put in the {CONTAINER} ?", "OBJECT"),
      ("where did the {PERSON} put the {OBJECT} ?", "CONTAINER"))),
    ("the {VENUE} opens at {HOUR} and closes at {HOUR.1} .",
     (("when does the {VENUE} open ?", "HOUR"), ("when does the {VENUE} close ?", "HOUR.1"))),
    ("the {PERSON} bought a {OBJECT} for {PRICE} dollars .",
     (("how much did the {OBJECT} cost ?", "PRICE"), ("what did the {PERSON} buy ?", "OBJECT"))),
    ("the {PERSON} gave the {DISH} to the {PERSON.1} .",
     (("who gave the {DISH} away ?", "PERSON"), ("who got the {DISH} ?", "PERSON.1"))),
)
ANSWER_EXTRA = {"PRICE": " dollars"}            # an answer that runs on past its slot


@dataclass(frozen=True)
class Question:
    """question, passage, the answer's (start, end) characters in passage, and the answer text."""
    question: str
    passage: str
    start: int
    end: int

    @property
    def answer(self) -> str:
        return self.passage[self.start:self.end]


def _draw(slot: str, pool: dict, rng: random.Random, taken: set) -> str:
    kind = slot.split(".")[0]
    choices = {"HOUR": HOURS, "PRICE": PRICES, "REASON": REASONS}.get(kind) or pool[kind]
    word = rng.choice([c for c in choices if c not in taken])
    taken.add(word)
    return word


def _sentence(template: str, values: dict) -> str:
    return " ".join(values.get(w[1:-1], w) if w.startswith("{") else w for w in template.split())


def passage(pool: dict, rng: random.Random) -> list[Question]:
    """One passage of three sentences and every question it answers."""
    kinds = rng.sample(KINDS, 3)
    taken, filled = set(), []
    for template, questions in kinds:
        slots = [w[1:-1] for w in template.split() if w.startswith("{")]
        values = {s: _draw(s, pool, rng, taken) for s in slots}
        filled.append((template, questions, values))
    words, where = [], {}                     # where: (sentence, slot) -> first word index of its value
    for k, (template, _q, values) in enumerate(filled):
        for w in template.split():
            if w.startswith("{"):
                where[(k, w[1:-1])] = len(words)
                words += values[w[1:-1]].split()
            else:
                words.append(w)
    text = typed([(w, "O") for w in words])
    out = []
    for k, (_t, questions, values) in enumerate(filled):
        for q, slot in questions:
            first = where[(k, slot)]
            last = first + len(values[slot].split()) - 1 + (1 if slot in ANSWER_EXTRA else 0)
            asked = typed([(w, "O") for w in _sentence(q, values).split()]).text
            out.append(Question(asked, text.text, text.spans[first][0], text.spans[last][1]))
    return out


def questions(split: str, n_passages: int, seed: int = 0) -> list[Question]:
    """Every question of n_passages passages of "train" or "heldout" nouns."""
    pool, rng = split_nouns(split), random.Random(f"qa-{split}-{seed}")
    return [q for _ in range(n_passages) for q in passage(pool, rng)]
