"""Sequence-level unlikelihood training (Welleck et al. 2019, "Neural text generation with unlikelihood
training", §5.2) against greedy loops such as "a man who is a man who is a man who is".

The decoder continues the opening ids of training documents greedily; every continued id that lies inside a
4-gram already seen earlier in its sequence is pushed down by −log(1 − p(id)). Mixed step by step with the
next-token loss on training windows (whose repeated spans keep the copying of text actually read), it
teaches the model to leave a loop it has started without forgetting what it read.
"""
from dataclasses import dataclass

import numpy as np
import torch

from model.data.bpe import BOS, EOS

NGRAM = 4


@dataclass(frozen=True)
class Prefixes:
    """A batch for the unlikelihood loss: ids (B, P), each row [BOS] and the first P − 1 ids of a document,
    to be continued by `new` ids; weight scales the loss against the next-token loss of the other steps."""
    ids: torch.Tensor
    new: int
    weight: float = 1.0


def document_prefixes(stream: np.ndarray, length: int, size: int, new: int, rng: np.random.Generator,
                      weight: float = 1.0) -> Prefixes:
    """`size` random document openings of `length` ids (BOS included) from a stream of [BOS] doc [EOS] ...,
    drawn from the documents longer than that."""
    bos, eos = np.flatnonzero(stream == BOS), np.flatnonzero(stream == EOS)
    ends = eos[np.minimum(np.searchsorted(eos, bos), len(eos) - 1)]
    starts = bos[ends - bos > length]
    picked = rng.choice(starts, size)
    return Prefixes(torch.from_numpy(np.stack([stream[s:s + length] for s in picked]).astype(np.int64)), new, weight)


@torch.no_grad()
def greedy_extend(model, prefixes: torch.Tensor, new: int) -> torch.Tensor:
    """prefixes (B, P) -> (B, P + new): each row continued by its most likely next id, one at a time with the
    model's key/value cache."""
    caches = [{} for _ in model.encoder.layers]
    ids = prefixes
    step = prefixes
    for _ in range(new):
        x = model.encode(step, kv_caches=caches, offset=ids.shape[1] - step.shape[1]).x[:, -1]     # (B, C)
        step = model.lm_head(x).argmax(-1, keepdim=True)                                          # (B, 1)
        ids = torch.cat([ids, step], dim=1)
    return ids


def repeated_ngram_mask(ids: torch.Tensor, start: int, n: int = NGRAM) -> torch.Tensor:
    """(B, T) bool: True at positions ≥ start that lie inside an n-gram (starting at or after `start`) which
    already occurred earlier in the same row, starting anywhere before it."""
    rows = ids.tolist()
    mask = torch.zeros(ids.shape, dtype=torch.bool)
    for b, row in enumerate(rows):
        first: dict[tuple, int] = {}
        for s in range(len(row) - n + 1):
            gram = tuple(row[s:s + n])
            seen = first.setdefault(gram, s)
            if s >= start and seen < s:
                mask[b, s:s + n] = True
    return mask


def sequence_loss(model, batch: Prefixes) -> tuple[torch.Tensor, int]:
    """The unlikelihood loss of greedy continuations: weight × the mean over the B·new continued ids of
    −log(1 − p(id | ids before)) at the ids inside a repeated 4-gram, up to the row's first [EOS] (0 elsewhere).
    Returns (loss, B·new)."""
    training = model.training
    model.eval()
    ids = greedy_extend(model, batch.ids, batch.new)                                 # (B, P + new)
    model.train(training)
    P = batch.ids.shape[1]
    logits = model(ids[:, :-1])[:, P - 1:]                                     # (B, new, V): predict ids P..
    p = torch.softmax(logits.float(), dim=-1).gather(-1, ids[:, P:, None])[..., 0]        # (B, new)
    ended = (ids[:, P:] == EOS).cumsum(1) - (ids[:, P:] == EOS).long() > 0     # (B, new): after the first [EOS]
    flagged = repeated_ngram_mask(ids, P)[:, P:] & ~ended                      # (B, new)
    loss = -(torch.log((1 - p).clamp_min(1e-5)) * flagged).sum() / flagged.numel() * batch.weight
    return loss, flagged.numel()
