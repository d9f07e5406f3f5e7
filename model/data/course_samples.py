"""The course world's labelled texts: a Sample is a text with its pronoun references (Ref), each a pronoun and
the head noun or name it refers to, as word indices of `word_tokenizer.split_words(text)` (lower-cased, without
[CLS]; add 1 when the text is encoded with [CLS] in front).
"""
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Ref:
    """One pronoun and the head noun it refers to (word indices of split_words(text))."""
    pronoun_index: int
    antecedent_index: int
    pronoun: str
    antecedent: str


@dataclass(frozen=True)
class Sample:
    """A text with its pronoun references. pair_id links the two sides of a minimal pair; pair holds the nouns
    that compete for the pronoun (a schema's two nouns, or the people and things of an agreement sentence)."""
    text: str
    refs: tuple
    schema: str = ""
    frame: int = -1
    pair: tuple = ()
    pair_id: str = ""
    kind: str = "sentence"        # "sentence" | "passage" | "repeat" | "fact" | "ordinary" | a cue of CUES


# what settles an agreement sentence's pronoun: the antecedent is the only candidate of the pronoun's gender, the
# only one of its number, or the only one syntax allows (a reflexive takes its own clause's subject)
CUES = ("gender", "number", "structure")


def natural(text: str) -> str:
    """'the cafe was busy , so i left .' -> 'The cafe was busy, so I left.' (the same words, as typed)."""
    text = re.sub(r" ([.,!?])", r"\1", text)
    text = re.sub(r"\bi\b", "I", text)
    return re.sub(r"(^|[.!?] )([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)


def ref_to(words: list[str], pron_at: int, noun: str, search_before: int | None = None) -> Ref:
    """Ref from the pronoun position and the antecedent's first occurrence (before search_before when given).
    words: split_words(text), lower-cased; noun: the antecedent's word as split_words spells it."""
    j = words.index(noun, 0, search_before if search_before is not None else len(words))
    return Ref(pron_at, j, words[pron_at], noun)

