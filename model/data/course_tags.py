"""Entity types in course-world sentences, for token tagging: every word is O or the kind of thing the generator
put there (VENUE, DISH, ANIMAL, PLACE, OBJECT, CONTAINER, PERSON). The nouns are the course world's classes
(model/data/course_world.py, grown from WordNet) and a list of people; a quarter of each class's nouns (by a hash of
the noun) is held out, so a held-out sentence is all nouns no tagged training sentence holds, and the tagger must
know them from pre-training and from their context. Some templates fix the type by context ("ate a _ at the _"),
others admit any type ("I saw the _."), where only the word itself tells.

A sentence is a list of (word, tag); `typed` joins it as a person types it, with each word's character span."""
import hashlib
import random
from dataclasses import dataclass
from functools import lru_cache

from model.data import course_world as cw
from model.engine.cache_sizes import ONCE

PEOPLE = cw.PEOPLE + ("doctor", "nurse", "driver", "baker", "pilot", "singer", "lawyer", "artist", "soldier",
                      "writer", "dancer", "judge", "pupil", "tourist", "neighbour", "plumber")
TAGS = ("O", "VENUE", "DISH", "ANIMAL", "PLACE", "OBJECT", "CONTAINER", "PERSON")
# schema name -> the tags of its a and b nouns
SCHEMA_TAGS = {"venue_dish": ("VENUE", "DISH"), "animal_place": ("ANIMAL", "PLACE"),
               "object_container": ("OBJECT", "CONTAINER")}
ORDINARY = ("the {BEING} {verb} the {BEING} .", "the {BEING} {verb} the {BEING} near the {PLACE} .",
            "the {BEING} ate a {DISH} at the {VENUE} .", "the {BEING} found a {OBJECT} by the {PLACE} .",
            "the {PERSON} put the {OBJECT} in the {CONTAINER} .")
OPEN = ("i saw the {ANY} .", "we talked about the {ANY} and the {ANY} .", "there was a {ANY} next to the {ANY} .",
        "she pointed at the {ANY} .", "nobody mentioned the {ANY} .", "my friend liked the {ANY} .",
        "the {ANY} was new .", "he drew a {ANY} and a {ANY} .")
HELDOUT_SHARE = 4            # one noun in 4 is held out


def is_heldout_noun(noun: str) -> bool:
    return hashlib.sha256(f"tag-{noun}".encode()).digest()[0] % HELDOUT_SHARE == 0


@lru_cache(maxsize=ONCE)
def nouns() -> dict[str, tuple[str, ...]]:
    """tag -> its nouns (a noun in one class only)."""
    out = {"PERSON": PEOPLE}
    for name, (a, b) in SCHEMA_TAGS.items():
        out[a], out[b] = cw.SCHEMAS[name].a_nouns, cw.SCHEMAS[name].b_nouns
    return out


def split_nouns(split: str) -> dict[str, tuple[str, ...]]:
    """tag -> the nouns of "train" or "heldout"."""
    held = split == "heldout"
    return {t: tuple(n for n in ns if is_heldout_noun(n) == held) for t, ns in nouns().items()}


@dataclass(frozen=True)
class Typed:
    """A sentence as typed: text, and per word its (start, end) in text and its tag."""
    text: str
    spans: tuple[tuple[int, int], ...]
    tags: tuple[str, ...]


def typed(words: list[tuple[str, str]]) -> Typed:
    """[(word, tag)] -> Typed: words joined by spaces, none before . , ? !; a sentence's first letter and "i"
    capitalised."""
    text, spans = "", []
    for k, (w, _tag) in enumerate(words):
        w = "I" if w == "i" else (w[0].upper() + w[1:] if k == 0 or words[k - 1][0] in ".?!" else w)
        if text and w not in ".,?!":
            text += " "
        spans.append((len(text), len(text) + len(w)))
        text += w
    return Typed(text, tuple(spans), tuple(t for _w, t in words))


def fill(template: str, pool: dict[str, tuple[str, ...]], rng: random.Random, fixed: dict | None = None) -> list:
    """A template's words with its {SLOT}s filled from pool: {TAG} a noun of that tag, {BEING} a person or animal,
    {ANY} any noun, {verb} a verb (O); fixed: slot name -> list of (words, tag) used in turn instead."""
    fixed = {k: list(v) for k, v in (fixed or {}).items()}
    out, taken = [], set()
    for w in template.split():
        if not (w.startswith("{") and w.endswith("}")):
            out.append((w, "O"))
            continue
        slot = w[1:-1]
        if slot in fixed:
            words, tag = fixed[slot].pop(0)
            out += [(x, tag) for x in words.split()]
            continue
        if slot == "verb":
            out.append((rng.choice(cw.VERBS), "O"))
            continue
        tag = {"BEING": rng.choice(("PERSON", "ANIMAL")), "ANY": rng.choice(TAGS[1:])}.get(slot, slot)
        noun = rng.choice([n for n in pool[tag] if n not in taken])      # no noun twice in a sentence
        taken.add(noun)
        out.append((noun, tag))
    return out


def schema_sentence(rng: random.Random, pool: dict) -> list[tuple[str, str]]:
    """A Winograd-style course-world frame with its two nouns tagged (the predicate's words are O)."""
    name = rng.choice(sorted(SCHEMA_TAGS))
    s, (ta, tb) = cw.SCHEMAS[name], SCHEMA_TAGS[name]
    frame = rng.choice(s.frames).replace("{a}", "{A}").replace("{b}", "{B}")
    pred = rng.choice(s.a_preds + s.b_preds)
    words = fill(frame.replace("{p}", pred), pool, rng, {"A": [(rng.choice(pool[ta]), ta)],
                                                         "B": [(rng.choice(pool[tb]), tb)]})
    return words


def sentences(split: str, n: int, seed: int = 0) -> list[Typed]:
    """n tagged sentences of "train" or "heldout" nouns: 40% schema frames, 30% ordinary, 30% open templates."""
    pool, rng = split_nouns(split), random.Random(f"{split}-{seed}")
    out = []
    for _ in range(n):
        u = rng.random()
        if u < 0.4:
            words = schema_sentence(rng, pool)
        else:
            words = fill(rng.choice(ORDINARY if u < 0.7 else OPEN), pool, rng)
        out.append(typed(words))
    return out
