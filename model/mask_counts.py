"""Allowed pairs of each mask pattern in O(N) per pattern: closed-form row counts, so the cost curve can go
to N = 16k and beyond without building (or scanning) an N × N matrix. Exactly `masks.build(...).sum(1)`."""
import numpy as np

from . import masks


def _window_rows(i, n, w, causal):
    return np.minimum(i, w) + 1 + (0 if causal else np.minimum(n - 1 - i, w))


def _global_rows(i, n, w, positions, causal):
    """Window rows plus the global columns outside the window; global rows see everything (or the past)."""
    p = np.unique([q for q in positions if 0 <= q < n])
    before = np.searchsorted(p, i - w, side="left")                 # globals left of the window
    after = 0 if causal else len(p) - np.searchsorted(p, i + w, side="right")
    rows = _window_rows(i, n, w, causal) + before + after
    rows[p] = (p + 1) if causal else n
    return rows


def _random_rows(i, n, per_row, seed, causal):
    keys = np.concatenate([masks.random_keys(n, per_row, seed), i[:, None]], axis=1)   # (n, r + 1)
    if causal:
        keys = np.where(keys <= i[:, None], keys, -1)                 # -1: a dropped future key
    keys = np.sort(keys, axis=1)
    return (np.diff(keys, axis=1) != 0).sum(1) + 1 - (keys[:, 0] == -1)


def row_counts(key: str, n: int, causal: bool = False, **params) -> np.ndarray:
    """(n,) int64: how many keys each query may attend under masks.build(key, n, causal, **params)."""
    pat = masks.PATTERNS[key]
    p = {**pat.defaults(), **params}
    i = np.arange(n)
    if key == "full":
        return i + 1 if causal else np.full(n, n)
    if key == "causal":
        return i + 1
    if key == "window":
        return _window_rows(i, n, p["width"], causal)
    if key == "dilated":
        d = p["dilation"]
        return np.minimum(i // d, p["width"]) + 1 + (0 if causal else np.minimum((n - 1 - i) // d, p["width"]))
    if key in ("global", "extra_global"):
        positions = p["positions"] if key == "global" else range(p["n_global"])
        return _global_rows(i, n, p["width"], positions, causal)
    if key == "random":
        return _random_rows(i, n, p["per_row"], p["seed"], causal)
    if key == "strided":
        s = p["stride"]
        local = np.minimum(i, s - 1) + 1 + (0 if causal else np.minimum(n - 1 - i, s - 1))
        return local + i // s + (0 if causal else (n - 1 - i) // s)
    if key == "block_local":
        b = p["block"]
        return i % b + 1 if causal else np.minimum(b, n - (i // b) * b)
    if key == "padding":
        return np.minimum(p["length"], i + 1) if causal else np.full(n, min(p["length"], n))
    if key == "swin" and not causal:
        if n % p["grid_w"]:
            raise ValueError(f"N={n} patches do not fill rows of {p['grid_w']}")
        ids = masks.swin_window_ids(n // p["grid_w"], p["grid_w"], p["window"], p["shift"])
        return np.bincount(ids)[ids]
    chunk = 256                                                          # no closed form (e.g. bigbird)
    return np.concatenate([pat.rows(i[a:a + chunk], n, causal, **params).sum(1) for a in range(0, n, chunk)])


def allowed_pairs(key: str, n: int, causal: bool = False, **params) -> int:
    """Number of (query, key) pairs the pattern allows at length n."""
    return int(row_counts(key, n, causal, **params).sum())
