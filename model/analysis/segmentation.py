"""One text cut four ways, as the textbook's 12.5.1 weighs them: whole words (a fixed vocabulary, unknown
words become [UNK]), byte-level BPE pieces, characters and UTF-8 bytes; the sequence length each gives and
what that length costs self-attention (N² query-key pairs per head and layer). And the embedding lookup of
12.5.2: X = Ω_e·T, where T holds one one-hot column per token."""
from dataclasses import dataclass

import numpy as np

from i18n import N_
from model.data.bpe import BPETokenizer, display
from model.data.word_tokenizer import WordTokenizer


@dataclass(frozen=True)
class Segmentation:
    """name: how the text was cut (English; a page shows _(name)); pieces: what each token shows; unknown: True
    where a piece is [UNK]."""
    name: str
    pieces: tuple[str, ...]
    unknown: tuple[bool, ...]

    @property
    def length(self) -> int:
        return len(self.pieces)

    @property
    def attention_pairs(self) -> int:
        """N² query-key pairs one head scores in one layer."""
        return self.length ** 2


def segmentations(text: str, bpe: BPETokenizer, words: WordTokenizer) -> list[Segmentation]:
    """The text as words of `words`' vocabulary, BPE pieces, characters and bytes, in that order."""
    w = words.encode(text)
    b = bpe.encode(text)
    chars = tuple(c for c in text)
    raw = tuple(display(bytes([x])) for x in text.encode("utf-8"))
    return [Segmentation(N_("words"), tuple(w.tokens), tuple(w.unknown)),
            Segmentation(N_("BPE pieces"), tuple(b.pieces), (False,) * len(b.pieces)),
            Segmentation(N_("characters"), chars, (False,) * len(chars)),
            Segmentation(N_("bytes"), raw, (False,) * len(raw))]


def one_hot_columns(ids: list[int], vocab_size: int) -> np.ndarray:
    """T: (|V|, N) with T[ids[n], n] = 1 and zeros elsewhere."""
    t = np.zeros((vocab_size, len(ids)))
    t[list(ids), np.arange(len(ids))] = 1.0
    return t


def embed_by_product(omega_e: np.ndarray, ids: list[int]) -> np.ndarray:
    """X = Ω_e·T. omega_e: (D, |V|), one column per token of the vocabulary; returns (D, N)."""
    return omega_e @ one_hot_columns(ids, omega_e.shape[1])
