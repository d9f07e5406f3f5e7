"""Word-level tokenizer for the generated course-world corpora: lower-cased words and punctuation,
fixed special tokens, unknown words mapped to [UNK] and flagged (never dropped silently)."""
import re
from dataclasses import dataclass

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[BOS]", "[EOS]")
PAD, UNK, CLS, SEP, MASK, BOS, EOS = range(len(SPECIALS))
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]", re.IGNORECASE)


def split_words(text: str, lower: bool = True) -> list[str]:
    """'The cat's mat.' -> ['the', "cat's", 'mat', '.'] (case kept when lower=False)."""
    words = _WORD.findall(text)
    return [w.lower() for w in words] if lower else words


@dataclass
class Encoding:
    """ids: token ids; tokens: the pieces as read (lower-cased, specials by name);
    unknown: True where the typed piece is not in the vocabulary."""
    ids: list[int]
    tokens: list[str]
    unknown: list[bool]


class WordTokenizer:
    def __init__(self, vocab: list[str]):
        if tuple(vocab[:len(SPECIALS)]) != SPECIALS:
            raise ValueError("vocabulary must start with the special tokens " + ", ".join(SPECIALS))
        self.vocab = list(vocab)
        self.index = {w: i for i, w in enumerate(self.vocab)}

    @classmethod
    def build(cls, texts, min_count: int = 1) -> "WordTokenizer":
        """The one way a vocabulary is made: the special tokens, then every word of `texts` (split_words)
        seen at least `min_count` times, sorted."""
        counts: dict[str, int] = {}
        for t in texts:
            for w in split_words(t):
                counts[w] = counts.get(w, 0) + 1
        words = sorted(w for w, n in counts.items() if n >= min_count and w not in SPECIALS)
        return cls(list(SPECIALS) + words)

    def __len__(self):
        return len(self.vocab)

    def encode(self, text: str, add_cls_sep: bool = False, bos: bool = False, eos: bool = False) -> Encoding:
        pieces = split_words(text, lower=False)
        ids = [self.index.get(p.lower(), UNK) for p in pieces]
        unknown = [i == UNK for i in ids]
        tokens = [p.lower() for p in pieces]
        if add_cls_sep:
            ids, tokens, unknown = [CLS] + ids + [SEP], ["[CLS]"] + tokens + ["[SEP]"], [False] + unknown + [False]
        if bos:
            ids, tokens, unknown = [BOS] + ids, ["[BOS]"] + tokens, [False] + unknown
        if eos:
            ids, tokens, unknown = ids + [EOS], tokens + ["[EOS]"], unknown + [False]
        return Encoding(ids, tokens, unknown)

    def decode(self, ids, skip_special: bool = True) -> str:
        words = [self.vocab[i] for i in ids if not (skip_special and i < len(SPECIALS))]
        text = " ".join(words)
        return re.sub(r" ([.,!?;:])", r"\1", text)

    def to_dict(self) -> dict:
        return {"type": "word", "vocab": self.vocab}

    @classmethod
    def from_dict(cls, d: dict) -> "WordTokenizer":
        if d.get("type") != "word":
            raise ValueError(f"unknown tokenizer type {d.get('type')!r}")
        return cls(d["vocab"])
