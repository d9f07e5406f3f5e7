"""Streams of random symbols (short syllables "ba", "ko", ... read by a word tokenizer) for next-token tasks: a
weak skip-bigram rule (a token sometimes fixes the token two places later) and spans copied to a later place, so
the second copy can be predicted only by finding the first (Olsson et al. 2022). The training lab's induction and
previous-token lessons train on them (model/lab/tasks.py); model/analysis/incontext.py draws held-out prompts.

    x = stream(rng, batch, length, vocab_size, skip)      # (batch, length) [BOS] then symbol ids
    repeat_spans(rng, x, (3, 10), copies=1)               # in place"""
import numpy as np

from model.data.word_tokenizer import BOS, SPECIALS, WordTokenizer

LOW = len(SPECIALS)                      # the first ordinary id
SYLLABLES = tuple(c + v for c in "bdfgklmnprstvz" for v in "aeiou")     # 70 symbols


def symbols(n: int) -> WordTokenizer:
    """The special tokens, then n syllables."""
    return WordTokenizer(list(SPECIALS) + list(SYLLABLES[:n]))


def skip_rule(vocab_size: int) -> np.ndarray:
    """(vocab_size,) a fixed permutation of the symbols (specials map to themselves): with the skip-bigram rule,
    token t + 1 is rule[token t − 1]."""
    return np.concatenate([np.arange(LOW), LOW + np.random.default_rng(7).permutation(vocab_size - LOW)])


def stream(rng, batch: int, length: int, vocab_size: int, skip: float) -> np.ndarray:
    """(batch, length) [BOS] then symbols; each symbol after the second is rule[two back] with probability
    `skip`, else uniform."""
    x = rng.integers(LOW, vocab_size, size=(batch, length))
    x[:, 0] = BOS
    if skip:
        rule, keep = skip_rule(vocab_size), rng.random((batch, length)) < skip
        for t in range(3, length):
            x[:, t] = np.where(keep[:, t], rule[x[:, t - 2]], x[:, t])
    return x


def repeat_spans(rng, x: np.ndarray, spans: tuple[int, int], copies: int, placed: list | None = None) -> np.ndarray:
    """x with `copies` spans per row (lengths spans[0]..spans[1]) copied from a random place to a later random
    place (position 0, [BOS], never moves). In place; returns x. `placed`, when given, receives one
    (row, first start, second start, length) per copy."""
    B, T = x.shape
    for b in range(B):
        for _ in range(copies):
            s = int(rng.integers(spans[0], spans[1] + 1))
            a = int(rng.integers(1, T - 2 * s + 1))
            c = int(rng.integers(a + s, T - s + 1))
            x[b, c:c + s] = x[b, a:a + s]
            if placed is not None:
                placed.append((b, a, c, s))
    return x
