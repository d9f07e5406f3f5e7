"""The typed, frozen results a run hands to pages and viz: numpy arrays and plain values, no tensors.
One type per kind of run: text self-attention, encoder-decoder (translation), image. Built once by the
task that ran the model; arrays are made read-only so no page can change what another page reads."""
from dataclasses import dataclass, fields

import numpy as np


def _freeze(obj):
    """Make every ndarray field of a dataclass read-only."""
    for f in fields(obj):
        value = getattr(obj, f.name)
        arrays = value if isinstance(value, tuple) else (value,)
        for a in arrays:
            if isinstance(a, np.ndarray):
                a.flags.writeable = False


class _FrozenArrays:
    """Arrays made read-only once built; layer and head counts read off `weights` (L, H, ...)."""

    def __post_init__(self):
        _freeze(self)

    @property
    def n_layers(self) -> int:
        return self.weights.shape[0]

    @property
    def n_heads(self) -> int:
        return self.weights.shape[1]


@dataclass(frozen=True)
class TextRun(_FrozenArrays):
    """A text model's self-attention on one text.

    tokens: N pieces as shown; ids: (N,) int; unknown: N flags for pieces outside the vocabulary;
    weights: (L, H, N, N) float32, rows sum to 1 over allowed keys; hidden: (L + 1, N, C), the layer inputs
    then the output; logits: (N, V), None when not asked for; q, k, v: (L, H, N, D) and scores: (L, H, N, N)
    scaled, −inf where masked, only when asked for; notices: what the user should know (e.g. the text was cut), as
    i18n.Message (str() gives it in the language of the session that shows it);
    words: the token indices of each whole word (model.tasks.word_attention turns piece attention into word
    attention) and word_texts, each as typed.
    """
    tokens: tuple[str, ...]
    ids: np.ndarray
    unknown: tuple[bool, ...]
    weights: np.ndarray
    hidden: np.ndarray
    logits: np.ndarray | None
    q: np.ndarray | None = None
    k: np.ndarray | None = None
    v: np.ndarray | None = None
    scores: np.ndarray | None = None
    notices: tuple = ()
    words: tuple[tuple[int, ...], ...] = ()
    word_texts: tuple[str, ...] = ()


@dataclass(frozen=True)
class WordView(_FrozenArrays):
    """A text model's attention between whole words (Clark et al. 2019: summed over a key word's pieces,
    averaged over a query word's). tokens: W words as typed, [CLS]/[SEP] on their own; pieces: each word's
    pieces; weights: (L, H, W, W) float32; unknown: W flags (a word with a piece outside the vocabulary);
    notices: the run's."""
    tokens: tuple[str, ...]
    pieces: tuple[tuple[str, ...], ...]
    weights: np.ndarray
    unknown: tuple[bool, ...]
    notices: tuple = ()


@dataclass(frozen=True)
class TranslationRun(_FrozenArrays):
    """An encoder-decoder on one source, the target decoded or forced.

    src_tokens: S source tokens; tokens: T decoder inputs ([BOS] + target); ids: (T,); written: the T
    tokens written, [EOS] last; output: the translation as text; target_ids: the target without [EOS];
    method: "greedy", "beam" or "forced"; score: Σ log p of the written tokens (None when forced);
    step_probs: (T,) probability of each written token; beams: every final beam hypothesis as
    (text, score, finished), best first (empty unless beam search ran);
    enc_weights: (L, H, S, S); weights: (L, H, T, T) decoder masked self-attention; cross_weights:
    (L, H, T, S); logits: (T, V_target).
    """
    src_tokens: tuple[str, ...]
    tokens: tuple[str, ...]
    ids: np.ndarray
    written: tuple[str, ...]
    output: str
    target_ids: tuple[int, ...]
    method: str
    score: float | None
    step_probs: np.ndarray
    beams: tuple[tuple[str, float, bool], ...]
    enc_weights: np.ndarray
    weights: np.ndarray
    cross_weights: np.ndarray
    logits: np.ndarray


@dataclass(frozen=True)
class ImageRun(_FrozenArrays):
    """An image model on one image.

    tokens: the input tokens ("<cls>", "p0", … for a ViT; "p0", … for a model without <cls>); weights: one
    (H, N_l, N_l) float32 array per layer (a hierarchical model has fewer tokens in later stages; a DaViT
    channel block has none: None); logits: (n_classes,); probs: (n_classes,) summing to 1; classes: their
    names; grid: patches per side of the first stage (rows, columns); patch_size: pixels per patch side there;
    masks: one (N_l, N_l) bool "may attend" array per layer for windowed models, else None;
    stage_of_layer: the stage of each layer (empty: one stage); grids: tokens per side of each stage, each
    stage's patches twice the side of the one before (empty: (grid,)); inputs: each layer's input (N_l, C_l)
    for hierarchical models, else None; channel_weights: per layer (G, C_g, C_g) channel-group attention
    (DaViT's channel blocks), None elsewhere; None for models without any; windows: per layer (window side, shift)
    in tokens for windowed models ((0, 0) for a block without token attention), else empty.
    """
    tokens: tuple[str, ...]
    weights: tuple
    logits: np.ndarray
    probs: np.ndarray
    classes: tuple[str, ...]
    grid: tuple[int, int]
    patch_size: int
    masks: tuple | None = None
    stage_of_layer: tuple[int, ...] = ()
    grids: tuple[tuple[int, int], ...] = ()
    inputs: tuple[np.ndarray, ...] | None = None
    channel_weights: tuple | None = None
    windows: tuple[tuple[int, int], ...] = ()

    @property
    def n_layers(self) -> int:
        return len(self.weights)

    @property
    def n_heads(self) -> int:
        return next(w for w in self.weights if w is not None).shape[0]

    @property
    def has_cls(self) -> bool:
        return self.tokens[0] == "<cls>"

    @property
    def stages(self) -> tuple[int, ...]:
        """The stage of each layer."""
        return self.stage_of_layer or (0,) * self.n_layers

    @property
    def n_stages(self) -> int:
        return max(self.stages) + 1

    def layers_of(self, stage: int) -> list[int]:
        return [i for i, s in enumerate(self.stages) if s == stage]

    def stage_grid(self, stage: int) -> tuple[int, int]:
        return self.grids[stage] if self.grids else self.grid

    def stage_patch_size(self, stage: int) -> int:
        """Pixels per side of one token of that stage: each merging doubles it."""
        return self.patch_size * (self.grid[0] // self.stage_grid(stage)[0])

    def stage_tokens(self, stage: int) -> tuple[str, ...]:
        """The patch tokens of a stage, "p0", … row-major (the first stage: `tokens` without <cls>)."""
        gh, gw = self.stage_grid(stage)
        return tuple(f"p{i}" for i in range(gh * gw))

    def stacked_weights(self) -> np.ndarray:
        """(L, H, N, N) when every layer has the same N tokens (ValueError otherwise)."""
        if any(w is None for w in self.weights) or len({w.shape for w in self.weights}) != 1:
            raise ValueError("the layers of this model have different token counts")
        return np.stack(self.weights)
