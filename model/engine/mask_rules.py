"""The row rules behind model.engine.masks: each 1-D pattern as `rule(i, n, **params) -> (len(i), n) bool`
(True = may attend) for query positions i (R,) of a length-n sequence, so a full (n, n) matrix and a row-by-row
count come from the same code; plus the seeded random keys and Swin's window numbering on a patch grid."""
import numpy as np

from model.engine.errors import InputError
from model.engine.messages import N_


def offsets(i, n):
    """(R, n) int64 key - query offsets."""
    return np.arange(n)[None, :] - np.asarray(i)[:, None]


def full(i, n):
    return np.ones((len(i), n), dtype=bool)


def causal(i, n):
    return offsets(i, n) <= 0


def window(i, n, width=2):
    return np.abs(offsets(i, n)) <= width


def dilated(i, n, width=2, dilation=2):
    off = offsets(i, n)
    return (np.abs(off) <= width * dilation) & (off % dilation == 0)


def chosen_global(i, n, width=1, positions=(0,)):
    g = np.zeros(n, dtype=bool)
    g[[p for p in positions if 0 <= p < n]] = True
    return window(i, n, width) | g[None, :] | g[np.asarray(i)][:, None]


def extra_global(i, n, width=1, n_global=1):
    """n = g added tokens + the text's tokens: the added ones (0..g-1) see and are seen by all, the text's
    keep their window (its band is the same counted from the first text token)."""
    return chosen_global(i, n, width, tuple(range(n_global)))


def random_keys(n: int, per_row: int, seed: int) -> np.ndarray:
    """(n, per_row) int: the keys drawn (with replacement) for every query of a length-n sequence."""
    return np.random.default_rng((seed, n)).integers(0, n, size=(n, per_row))


def random(i, n, per_row=2, seed=0):
    i = np.asarray(i)
    out = np.zeros((len(i), n), dtype=bool)
    out[np.arange(len(i))[:, None], random_keys(n, per_row, seed)[i]] = True
    out[np.arange(len(i)), i] = True                             # a token always sees itself
    return out


def bigbird(i, n, width=1, n_global=1, per_row=2, seed=0):
    """BigBird-ITC: the first n_global existing tokens made global (chosen kind), a window, random keys."""
    return chosen_global(i, n, width, tuple(range(n_global))) | random(i, n, per_row, seed)


def strided(i, n, stride=4):
    off = offsets(i, n)
    return (np.abs(off) < stride) | (off % stride == 0)


def block_local(i, n, block=4):
    return (np.asarray(i)[:, None] // block) == (np.arange(n)[None, :] // block)


def swin(i, n, grid_w=8, window=4, shift=0):
    if n % grid_w:
        raise InputError(N_("N={n} patches do not fill rows of {w}: choose N a multiple of the grid width"),
                         n=n, w=grid_w)
    win = swin_window_ids(n // grid_w, grid_w, window, shift)
    return win[np.asarray(i)][:, None] == win[None, :]


def padding(i, n, length=8):
    return np.broadcast_to(np.arange(n)[None, :] < length, (len(i), n)).copy()


def swin_window_ids(grid_h: int, grid_w: int, window: int, shift: int = 0) -> np.ndarray:
    """(grid_h·grid_w,) int window index of each patch (row-major) under Swin windows shifted by `shift`,
    numbered 0, 1, … in row-major order of the windows."""
    if min(grid_h, grid_w, window) < 1 or not 0 <= shift < window:
        raise InputError(N_("need grid, window >= 1 and 0 <= shift < window (got {h}x{w}, window={window}, "
                            "shift={shift})"), h=grid_h, w=grid_w, window=window, shift=shift)
    rows = (np.arange(grid_h) + (window - shift) % window) // window      # window index of each row
    cols = (np.arange(grid_w) + (window - shift) % window) // window
    ids = (rows[:, None] * (grid_w + window) + cols[None, :]).reshape(-1)
    return np.unique(ids, return_inverse=True)[1].reshape(-1)


def swin_window_mask(grid_h: int, grid_w: int, window: int, shift: int = 0) -> np.ndarray:
    """Patches (row-major, N = grid_h·grid_w) attend within their window×window window; with shift s,
    the windows are those of Swin's cyclic shift by s plus its mask: the grid cut at s, s+window, …

    Returns (N, N) bool. 0 <= shift < window.
    """
    win = swin_window_ids(grid_h, grid_w, window, shift)
    return win[:, None] == win[None, :]
