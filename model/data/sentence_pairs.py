"""Sentence pairs for next-sentence prediction as BERT was pre-trained (Devlin et al. 2019, §3.1): sentence A and,
half of the time, the sentence that follows it in real running text (IsNext), otherwise a sentence from another
document (NotNext). The running text is the English fortune cookies of the real-text corpus (quotations, jokes,
short dialogues: model/data/real_text.py), split into sentences; held-out pairs come from held-out documents only."""
import random
import re
from dataclasses import dataclass
from functools import lru_cache

from model.data import real_text
from model.engine.cache_sizes import PER_SPLIT

# a sentence ends at . ! ? (and a closing quote or bracket) before a space and a capital or an opening quote
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z])")
MAX_CHARS = 300              # a longer sentence is not used (the encoder reads 128 pieces for both)


@dataclass(frozen=True)
class Pair:
    """Sentence a, sentence b, and whether b follows a in the text (True) or comes from elsewhere (False)."""
    a: str
    b: str
    is_next: bool


def sentences(text: str) -> list[str]:
    """A document's sentences, its line breaks read as spaces."""
    return [s.strip() for s in _BOUNDARY.split(" ".join(text.split())) if s.strip()]


@lru_cache(maxsize=PER_SPLIT)
def documents(split: str) -> tuple[tuple[str, ...], ...]:
    """The sentences of every English fortune of a split ("train" or "heldout") that has at least one."""
    docs = getattr(real_text.load(), split)
    out = [tuple(sentences(d.text)) for d in docs if d.source == "fortunes"]
    return tuple(d for d in out if d)


def consecutive(docs) -> list[tuple[int, int]]:
    """(document, sentence) of every sentence that has a next one in its document, both short enough."""
    return [(d, i) for d, sents in enumerate(docs) for i in range(len(sents) - 1)
            if len(sents[i]) <= MAX_CHARS and len(sents[i + 1]) <= MAX_CHARS]


def pairs(split: str, seed: int = 0, docs=None) -> list[Pair]:
    """Every consecutive pair of the split once, each as IsNext or (by a fair coin) NotNext with b a random
    sentence of another document; a new seed draws other coins and other b's."""
    docs = documents(split) if docs is None else docs
    rng = random.Random(f"nsp-{split}-{seed}")
    out = []
    for d, i in consecutive(docs):
        a = docs[d][i]
        if rng.random() < 0.5:
            out.append(Pair(a, docs[d][i + 1], True))
            continue
        while True:
            other = rng.randrange(len(docs))
            b = rng.choice(docs[other])
            if other != d and len(b) <= MAX_CHARS:
                break
        out.append(Pair(a, b, False))
    return out
