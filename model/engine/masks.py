"""Attention masks as boolean "may attend" matrices (True = may attend, the convention of
`F.scaled_dot_product_attention`): dense, causal, local windows (Longformer, Beltagy et al. 2020),
global and random tokens (BigBird, Zaheer et al. 2020), strided (Sparse Transformer, Child et al.
2019), block-local, padding, and Swin windows on a patch grid (Liu et al. 2021).

Every 1-D pattern is written once as a row rule `rule(i, n, **params) -> (len(i), n) bool` (model.engine.mask_rules),
so a full (N, N) matrix and a memory-bounded count of allowed pairs for N = 16k come from the same code.

Global tokens come in the textbook's two kinds (12.9). **Chosen** global tokens ("global") are existing
tokens, e.g. the first token of each sentence, made global: the matrix stays N × N. **Extra** global tokens
("extra_global") are g new tokens put in front of the N tokens, standing for no word (like <cls>): the
matrix grows to (N + g) × (N + g), the added tokens first (rows and columns 0..g-1), the text's N tokens
after them keeping their window. `Pattern.added` says how many tokens a pattern adds.
"""
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from model.engine import mask_rules as rules
from model.engine.errors import InputError
from model.engine.mask_rules import random_keys, swin_window_ids, swin_window_mask  # noqa: F401 (re-exported)
from model.engine.messages import N_


# ---- registry ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    """One integer parameter (or a tuple of positions when default is a tuple) with its bounds."""
    name: str
    label: str
    default: int | tuple
    lo: int = 0
    hi: int = 4096


@dataclass(frozen=True)
class Pattern:
    """A named mask pattern: a row rule, its parameters, a one-line explanation and its growth. The title,
    explanation and parameter labels are English, marked with N_; pages translate them where shown."""
    key: str
    title: str
    explanation: str
    rule: Callable
    params: tuple[Param, ...] = field(default_factory=tuple)
    growth: str = "N²"
    can_be_causal: bool = True
    adds: str | None = None          # the parameter counting the tokens the pattern adds in front of the N

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}

    def added(self, **params) -> int:
        """How many tokens the pattern puts in front of the text's N (extra global tokens: g; others 0)."""
        return int({**self.defaults(), **params}[self.adds]) if self.adds else 0

    def side(self, n: int, **params) -> int:
        """The mask's side for a text of n tokens: n plus the added tokens."""
        return n + self.added(**params)

    def rows(self, i, side: int, causal: bool = False, **params) -> np.ndarray:
        """(len(i), side) bool rows of the (side, side) mask (side = self.side(n)); causal keeps keys j <= i."""
        m = self.rule(np.asarray(i), side, **{**self.defaults(), **params})
        return m & rules.causal(i, side) if causal else m

    def build(self, n: int, causal: bool = False, **params) -> np.ndarray:
        """(side, side) bool, True = may attend; side = n, or n + g for a pattern that adds g tokens."""
        side = self.side(n, **params)
        return self.rows(np.arange(side), side, causal, **params)


_W = Param("width", N_("window (tokens each side)"), 2, 0, 4096)
PATTERNS: dict[str, Pattern] = {p.key: p for p in [
    Pattern("full", N_("Full (encoder)"), N_("Every token attends to every token: N² pairs."), rules.full, growth="N²",
            can_be_causal=False),
    Pattern("causal", N_("Causal (decoder)"), N_("Each token sees itself and the tokens before it, never the future."),
            rules.causal, growth="N(N+1)/2", can_be_causal=False),
    Pattern("window", N_("Sliding window"), N_("Each token sees the w tokens on either side of it."), rules.window,
            (_W,), growth="N·(2w+1)"),
    Pattern("dilated", N_("Dilated window"), N_("A window with gaps: every d-th token up to w·d away, so the same "
            "cost reaches d times further."), rules.dilated, (_W, Param("dilation", N_("dilation d"), 2, 1, 64)),
            growth="N·(2w+1)"),
    Pattern("global", N_("Chosen global tokens"), N_("A window, plus some of the N tokens themselves (e.g. the first "
            "word of each sentence) made global: they attend to all tokens and all tokens attend to them. No token "
            "is added: the mask stays N × N."), rules.chosen_global,
            (Param("width", N_("window (tokens each side)"), 1, 0, 4096),
             Param("positions", N_("global positions"), (0,))),
            growth="N·(2w+1) + 2gN"),
    Pattern("extra_global", N_("Extra global tokens"), N_("A window, plus g new tokens put in front of the N (like "
            "<cls>, they stand for no word) that see everything and are seen by everything: the mask grows to "
            "(N + g) × (N + g)."), rules.extra_global,
            (Param("width", N_("window (tokens each side)"), 1, 0, 4096),
             Param("n_global", N_("global tokens g"), 1, 0, 64)),
            growth="N·(2w+1) + 2gN + g²", adds="n_global"),
    Pattern("random", N_("Random (BigBird)"), N_("Each token sees itself and r keys drawn at random (seeded, with "
            "replacement)."),
            rules.random, (Param("per_row", N_("random keys r"), 2, 0, 256), Param("seed", N_("seed"), 0, 0, 10_000)),
            growth="N·(r+1)"),
    Pattern("bigbird", N_("BigBird (window + global + random)"), N_("Window, r random keys per token and the "
            "first g of the N tokens made global (chosen global tokens, as in BigBird-ITC; BigBird-ETC adds extra "
            "ones instead)."), rules.bigbird,
            (Param("width", N_("window (tokens each side)"), 1, 0, 4096),
             Param("n_global", N_("global tokens g"), 1, 0, 64),
             Param("per_row", N_("random keys r"), 2, 0, 256), Param("seed", N_("seed"), 0, 0, 10_000)),
            growth="N·(2w+1+r) + 2gN"),
    Pattern("strided", N_("Strided (Sparse Transformer)"), N_("Each token sees its s-1 neighbours and every s-th "
            "token: two hops reach anywhere."), rules.strided, (Param("stride", N_("stride s"), 4, 1, 4096),),
            growth="N·(2s + N/s)"),
    Pattern("block_local", N_("Block-local"), N_("The sequence is cut into blocks; tokens only see their own block."),
            rules.block_local, (Param("block", N_("block size b"), 4, 1, 4096),), growth="N·b"),
    Pattern("padding", N_("Padding"), N_("Keys past the real length are [PAD] and may not be attended."), rules.padding,
            (Param("length", N_("real length"), 8, 1, 1 << 16),), growth=N_("N·length")),
    Pattern("swin", N_("Swin windows (patch grid)"), N_("Patches of an image grid (row-major) attend within their "
            "window; a shift s moves the window borders by s patches, as Swin's cyclic shift + mask does."), rules.swin,
            (Param("grid_w", N_("grid width (patches)"), 8, 1, 128),
             Param("window", N_("window (patches)"), 4, 1, 64),
             Param("shift", N_("shift s"), 0, 0, 63)), growth=N_("N·window²"), can_be_causal=False),
]}


def build(key: str, n: int, causal: bool = False, **params) -> np.ndarray:
    """(n, n) bool mask of a registered pattern for a text of n tokens, e.g. build("window", 16, width=2);
    (n + g, n + g) for extra global tokens, the g added tokens first."""
    if key not in PATTERNS:
        raise InputError(N_("unknown mask pattern {key}; choose one of {keys}"), key=repr(key),
                         keys=sorted(PATTERNS))
    return PATTERNS[key].build(n, causal, **params)


# ---- the plain functions, one per pattern (each (N, N) bool, True = may attend) ----------------
def full(n: int) -> np.ndarray:
    """Every query attends to every key."""
    return build("full", n)


def causal(n: int) -> np.ndarray:
    """Query i attends keys 0..i (nothing above the diagonal)."""
    return build("causal", n)


def sliding_window(n: int, width: int, causal: bool = False) -> np.ndarray:
    """Query i attends keys j with |i - j| <= width (causal: i - width <= j <= i)."""
    return build("window", n, causal, width=width)


def dilated_window(n: int, width: int, dilation: int, causal: bool = False) -> np.ndarray:
    """Query i attends keys j = i + dilation·t for |t| <= width."""
    return build("dilated", n, causal, width=width, dilation=dilation)


def global_tokens(n: int, positions, width: int = 1, causal: bool = False) -> np.ndarray:
    """Chosen global tokens: a window over the n tokens, plus the chosen positions (existing tokens) whose rows
    and columns are all True. (n, n)."""
    return build("global", n, causal, width=width, positions=tuple(positions))


def extra_global_tokens(n: int, n_global: int, width: int = 1, causal: bool = False) -> np.ndarray:
    """Extra global tokens: n_global new tokens put in front of the n tokens (rows and columns 0..n_global-1,
    all True), the n tokens after them under the window. (n + n_global, n + n_global)."""
    return build("extra_global", n, causal, width=width, n_global=n_global)


def random_pattern(n: int, per_row: int, seed: int = 0, causal: bool = False) -> np.ndarray:
    """Each query attends itself and per_row random keys (seeded, reproducible)."""
    return build("random", n, causal, per_row=per_row, seed=seed)


def bigbird(n: int, width: int, n_global: int, per_row: int, seed: int = 0, causal: bool = False) -> np.ndarray:
    """Window | the first n_global tokens made global (chosen kind, BigBird-ITC) | random keys. (n, n)."""
    return build("bigbird", n, causal, width=width, n_global=n_global, per_row=per_row, seed=seed)


def strided(n: int, stride: int, causal: bool = False) -> np.ndarray:
    """|i - j| < stride, or i - j a multiple of stride (Sparse Transformer's strided pattern)."""
    return build("strided", n, causal, stride=stride)


def block_local(n: int, block: int, causal: bool = False) -> np.ndarray:
    """Query i attends key j iff both fall in the same block of `block` positions."""
    return build("block_local", n, causal, block=block)


def padding(n: int, length: int, causal: bool = False) -> np.ndarray:
    """Keys at positions >= length are padding and never attended."""
    return build("padding", n, causal, length=length)


# ---- allowed pairs in O(N): closed-form row counts, exactly build(...).sum(1), so the cost curve
# ---- reaches N = 16k and beyond without an N × N matrix
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
    keys = np.concatenate([random_keys(n, per_row, seed), i[:, None]], axis=1)   # (n, r + 1)
    if causal:
        keys = np.where(keys <= i[:, None], keys, -1)                 # -1: a dropped future key
    keys = np.sort(keys, axis=1)
    return (np.diff(keys, axis=1) != 0).sum(1) + 1 - (keys[:, 0] == -1)


def row_counts(key: str, n: int, causal: bool = False, **params) -> np.ndarray:
    """(side,) int64: how many keys each query may attend under masks.build(key, n, causal, **params); side = n,
    or n + g where the pattern adds g tokens."""
    pat = PATTERNS[key]
    p = {**pat.defaults(), **params}
    n = pat.side(n, **params)
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
            raise InputError(N_("N={n} patches do not fill rows of {w}: choose N a multiple of the grid width"),
                             n=n, w=p["grid_w"])
        ids = swin_window_ids(n // p["grid_w"], p["grid_w"], p["window"], p["shift"])
        return np.bincount(ids)[ids]
    chunk = 256                                                          # no closed form (e.g. bigbird)
    return np.concatenate([pat.rows(i[a:a + chunk], n, causal, **params).sum(1) for a in range(0, n, chunk)])


def allowed_pairs(key: str, n: int, causal: bool = False, **params) -> int:
    """Number of (query, key) pairs the pattern allows for a text of n tokens (added tokens included)."""
    return int(row_counts(key, n, causal, **params).sum())
