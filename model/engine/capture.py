"""What an attention call shows besides its output, asked for once at the call site.

    with capturing():                       # or capturing("weights", "q", "k", "v", "scores")
        out = model.encode(ids)             # out.intermediates[i].weights: (B, H, T, T) of layer i

Outside such a block every attention call takes the fast path and returns no intermediates. The request
lives in a context variable, so a model shared by many threads (one per browser session) never carries
per-call state, and no flag is passed through the layers (x-transformers' `Intermediates`,
TransformerLens's `run_with_cache`).
"""
import contextlib
import contextvars
from dataclasses import dataclass

import torch

KEEPABLE = ("weights", "q", "k", "v", "scores")


@dataclass(frozen=True)
class Intermediates:
    """One attention call. weights: (B, H, Tq, Tk); q: (B, H, Tq, D); k, v: (B, H, Tk, D);
    scores: (B, H, Tq, Tk) scaled, −inf where masked, before softmax. Unrequested fields are None."""
    weights: torch.Tensor
    q: torch.Tensor | None = None
    k: torch.Tensor | None = None
    v: torch.Tensor | None = None
    scores: torch.Tensor | None = None


class Request:
    """What the current block keeps, and an optional (L, B, H, T, T) buffer whose slices receive the weights
    of successive attention calls of that shape (one per layer, in order), so no per-layer copy is made."""

    def __init__(self, keep: tuple[str, ...], weights_into: torch.Tensor | None = None):
        unknown = set(keep) - set(KEEPABLE)
        if unknown or "weights" not in keep:
            raise ValueError(f"capturing keeps 'weights' and any of {KEEPABLE}; got {keep}")
        self.keep = frozenset(keep)
        self._buffer, self._next = weights_into, 0

    @property
    def weights_only(self) -> bool:
        return self.keep == {"weights"}

    def buffer_for(self, shape: tuple[int, ...]) -> torch.Tensor | None:
        """The next free (B, H, Tq, Tk) slice of the buffer when it has that shape, else None."""
        buf = self._buffer
        if buf is None or self._next >= len(buf) or tuple(buf.shape[1:]) != tuple(shape):
            return None
        self._next += 1
        return buf[self._next - 1]


_ACTIVE: contextvars.ContextVar[Request | None] = contextvars.ContextVar("attention_capture", default=None)


@contextlib.contextmanager
def capturing(*keep: str, weights_into: torch.Tensor | None = None):
    """Every attention call inside the block returns Intermediates with `keep` (default: weights only);
    stacks also keep every layer's hidden state."""
    token = _ACTIVE.set(Request(keep or ("weights",), weights_into))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active() -> Request | None:
    """The request of the enclosing `capturing` block, or None (fast path)."""
    return _ACTIVE.get()
