"""Span question answering, read out and scored as in SQuAD (Rajpurkar et al. 2016): the answer is the span
(s, e) of the passage with the highest start score + end score, s <= e, at most `max_len` tokens; exact match
and token F1 after lower-casing and dropping punctuation and the articles a / an / the."""
import re
from collections import Counter

import numpy as np

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]")


def best_span(start: np.ndarray, end: np.ndarray, allowed: np.ndarray, max_len: int = 16) -> tuple[int, int]:
    """The (s, e) maximising start[s] + end[e] with s <= e < s + max_len, both where allowed is True.

    start, end: (T,) scores; allowed: (T,) bool, the passage's tokens. ValueError when nothing is allowed."""
    allowed = np.asarray(allowed, dtype=bool)
    if not allowed.any():
        raise ValueError("no token of the passage to answer from")
    T = len(start)
    s_idx, e_idx = np.triu_indices(T)                               # every s <= e
    ok = (e_idx - s_idx < max_len) & allowed[s_idx] & allowed[e_idx]
    scores = np.where(ok, np.asarray(start)[s_idx] + np.asarray(end)[e_idx], -np.inf)
    k = int(np.argmax(scores))
    return int(s_idx[k]), int(e_idx[k])


def normalize_answer(text: str) -> list[str]:
    """Words of an answer as SQuAD compares them: lower case, no punctuation, no articles."""
    return _ARTICLES.sub(" ", _PUNCT.sub(" ", text.lower())).split()


def exact_match(predicted: str, gold: str) -> float:
    return float(normalize_answer(predicted) == normalize_answer(gold))


def token_f1(predicted: str, gold: str) -> float:
    """Harmonic mean of the precision and recall of the predicted words against the gold words (as bags)."""
    p, g = normalize_answer(predicted), normalize_answer(gold)
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if not common:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)
