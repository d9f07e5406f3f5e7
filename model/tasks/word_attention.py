"""Attention between whole words when a tokenizer splits words into pieces (Clark et al. 2019, sec. 2):
attention *to* a word is the sum of the weights on its pieces; attention *from* a word is the mean of its
pieces' rows. Rows keep summing to 1 when every piece belongs to a word."""
import numpy as np

from model.tasks.results import TextRun, WordView


def word_attention(weights: np.ndarray, groups: list[tuple[int, ...]], dtype=np.float64) -> np.ndarray:
    """weights: (..., N, N) over pieces; groups: W tuples of piece indices, one per word, in order.
    Returns (..., W, W) in `dtype`: [i, j] = mean over the pieces q of word i of Σ over the pieces k of word j
    of weights[q, k]. float32 halves the time (for display; evaluations keep float64)."""
    if not groups or any(not g for g in groups):
        raise ValueError("every word needs at least one piece")
    w = np.asarray(weights, dtype=dtype)
    n = w.shape[-1]
    member = np.zeros((n, len(groups)), dtype=dtype)                    # (N, W): 1 where piece k belongs to word j
    for j, g in enumerate(groups):
        member[list(g), j] = 1.0
    to_words = w @ member                                  # (..., N, W): summed over each word's key pieces
    mean_rows = member / member.sum(0, keepdims=True)      # (N, W): averages each word's query pieces
    return np.swapaxes(np.swapaxes(to_words, -1, -2) @ mean_rows, -1, -2)


def word_view(run: TextRun) -> WordView:
    """A run's attention between whole words, (L, H, W, W) float32, with each word's pieces and unknown flag."""
    weights = word_attention(run.weights, run.words, dtype=np.float32)
    return WordView(tuple(run.word_texts), tuple(tuple(run.tokens[k] for k in w) for w in run.words), weights,
                    tuple(any(run.unknown[k] for k in w) for w in run.words), tuple(run.notices))
