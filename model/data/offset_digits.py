"""The offset task of the relative-bias model: a row of random digits, and at each position the digit one place
to the left minus the digit two places to the right, mod 10. A digit says nothing about where it sits, so a
model with no absolute positions can find its two inputs only through a bias it learned per offset."""
import numpy as np
import torch

from model.engine.errors import InputError
from model.engine.messages import N_

VOCAB = 10                       # the digits 0..9 are their own token ids
OFFSETS = (-1, 2)                # key position − query position of the two digits a target reads
IGNORE = -100                    # no target where an input falls outside the row (cross_entropy's ignore_index)
RULE = "y[i] = (x[i−1] − x[i+2]) mod 10"
MAX_DIGITS = 64                  # the longest row a page reads


def targets(x: torch.Tensor) -> torch.Tensor:
    """x: (B, T) int64 digits -> (B, T) int64: (x[i−1] − x[i+2]) mod 10, IGNORE at the first and last two."""
    y = torch.full_like(x, IGNORE)
    y[:, 1:-2] = (x[:, :-3] - x[:, 3:]) % VOCAB
    return y


def batch(n: int, length: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """n random rows of `length` digits and their targets: (x (n, T), y (n, T))."""
    x = torch.randint(0, VOCAB, (n, length), generator=generator)
    return x, targets(x)


def parse(text: str) -> np.ndarray:
    """Typed digits (spaces and commas ignored) -> (T,) int64. InputError (a ValueError) says what is wrong."""
    kept = "".join(ch for ch in text if ch not in " ,\t\n")
    if not kept:
        raise InputError(N_("Type a row of digits, for example 3141592653."))
    bad = sorted({ch for ch in kept if ch not in "0123456789"})
    if bad:
        raise InputError(N_("Only the digits 0–9 can be read; found {characters}."),
                         characters=", ".join(repr(c) for c in bad[:5]))
    if not 4 <= len(kept) <= MAX_DIGITS:
        raise InputError(N_("The row has {n} digits; type between 4 and {most}."), n=len(kept), most=MAX_DIGITS)

    return np.array([int(ch) for ch in kept], dtype=np.int64)
