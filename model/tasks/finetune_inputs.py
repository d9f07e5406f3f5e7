"""How each fine-tuned head reads its input, shared by the recipes (training, evaluation) and the page:
    cls, nsp   [CLS] text [SEP]  /  [CLS] A [SEP] B [SEP]           the head reads the [CLS] state
    tag        [CLS] text [SEP]                                     one tag per word, read at its first piece
    span       [CLS] question [SEP] passage [SEP]                   start and end scores over the passage
"""
from dataclasses import dataclass

import numpy as np

from model.data import bpe
from model.tasks import spans

MAX_ANSWER = 16              # pieces an answer may span


def single(tok, text: str, max_pieces: int, masks: bool = False) -> tuple[list[int], list[str]]:
    """ids and pieces of [CLS] text [SEP], the text cut to max_pieces - 2 pieces; masks: "[MASK]" in the text is
    the mask token (bpe.BPETokenizer.encode)."""
    enc = tok.encode(text, masks=masks)
    n = max_pieces - 2
    return [bpe.CLS] + enc.ids[:n] + [bpe.SEP], ["[CLS]"] + enc.pieces[:n] + ["[SEP]"]


def pair(tok, a: str, b: str, max_each: int) -> tuple[list[int], list[str]]:
    """ids and pieces of [CLS] A [SEP] B [SEP], each sentence cut to max_each pieces."""
    ea, eb = tok.encode(a), tok.encode(b)
    return ([bpe.CLS] + ea.ids[:max_each] + [bpe.SEP] + eb.ids[:max_each] + [bpe.SEP],
            ["[CLS]"] + ea.pieces[:max_each] + ["[SEP]"] + eb.pieces[:max_each] + ["[SEP]"])


@dataclass(frozen=True)
class Tagged:
    """[CLS] text [SEP] in ids and pieces, and each word with letters: (its text, its first piece's index)."""
    ids: list[int]
    pieces: list[str]
    words: list[tuple[str, int]]


def tagged(tok, text: str, max_pieces: int) -> Tagged:
    """The text's words (bpe.group_words) that hold a letter, each read at its first piece, within max_pieces;
    [CLS] and [SEP] are not words."""
    enc = tok.encode(text, add_cls_sep=True)
    ids, pieces = enc.ids[:max_pieces - 1] + [bpe.SEP], enc.pieces[:max_pieces - 1] + ["[SEP]"]
    words = [(w.text, w.pieces[0]) for w in bpe.group_words(enc) if any(c.isalpha() for c in w.text)
             and enc.ids[w.pieces[0]] >= len(bpe.SPECIALS) and w.pieces[0] < len(ids) - 1]
    return Tagged(ids, pieces, words)


@dataclass(frozen=True)
class Question:
    """[CLS] question [SEP] passage [SEP]: ids and pieces; the passage's pieces are ids[lo:hi]; spans: each passage
    piece's (start, end) characters in passage (normalised text)."""
    ids: list[int]
    pieces: list[str]
    lo: int
    hi: int
    spans: list[tuple[int, int]]
    passage: str


def question(tok, asked: str, passage: str, max_pieces: int) -> Question:
    """The question (cut to 32 pieces) and as much of the passage as fits in max_pieces."""
    q, p = tok.encode(asked), tok.encode(passage)
    q_ids, q_pieces = q.ids[:32], q.pieces[:32]
    lo = len(q_ids) + 2
    keep = max(0, min(len(p.ids), max_pieces - lo - 1))
    return Question([bpe.CLS] + q_ids + [bpe.SEP] + p.ids[:keep] + [bpe.SEP],
                    ["[CLS]"] + q_pieces + ["[SEP]"] + p.pieces[:keep] + ["[SEP]"], lo, lo + keep,
                    list(p.spans[:keep]), p.text)


def characters(q: Question, s: int, e: int) -> tuple[int, int]:
    """The (start, end) characters in q.passage of the tokens s..e (indices into q.ids), the spaces a piece carries
    in front left out."""
    a, b = q.spans[s - q.lo][0], q.spans[e - q.lo][1]
    while a < b and q.passage[a].isspace():
        a += 1
    return a, b


def answer(q: Question, logits: np.ndarray, max_len: int = MAX_ANSWER) -> tuple[int, int, str]:
    """The best span's first and last token index (start <= end, both inside the passage) and the passage text it
    covers. logits: (T, 2) start and end scores."""
    allowed = np.zeros(len(logits), dtype=bool)
    allowed[q.lo:q.hi] = True
    s, e = spans.best_span(logits[:, 0], logits[:, 1], allowed, max_len)
    a, b = characters(q, s, e)
    return s, e, q.passage[a:b]
