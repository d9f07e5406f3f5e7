"""The contracts code may rely on, instead of asking a model which methods it has.

Networks (torch modules):
    TextModule   Transformer, SparseTransformer, CorefEncoder (and ImageGPT's decoder): ids -> StackOutput, and
                 the attention pattern the model applies by itself.
    ImageModule  ViT, Swin, DaViT: images -> StackOutput (ViT) or HierarchyOutput (Swin, DaViT), then classify.
Handles (model.handle.LoadedModel, by kind):
    TextModel    run(text) -> TextRun: tokenized by the model's own rule, attention captured.
    ImageModel   run(image) -> ImageRun.
"""
from typing import Any, Protocol, runtime_checkable

import numpy as np
import torch

from model.engine.config import ModelConfig
from model.engine.transformer import StackOutput
from model.tasks.results import ImageRun, TextRun


@runtime_checkable
class TextModule(Protocol):
    config: ModelConfig
    lm_head: torch.nn.Module | None

    def encode(self, ids: torch.Tensor, mask=None, positions: bool = True, kv_caches=None,
               offset: int = 0) -> StackOutput:
        """ids (B, T) -> StackOutput with x (B, T, C); a decoder adds its causal mask to `mask`."""

    def pattern_mask(self, n: int, device=None) -> torch.Tensor | None:
        """(n, n) bool "may attend" pattern of the model's own (a sparse model), or None."""


@runtime_checkable
class ImageModule(Protocol):
    config: Any

    def encode(self, images: torch.Tensor) -> Any:
        """images (B, C, S, S), normalised -> StackOutput (ViT: <cls> first) or HierarchyOutput (Swin, DaViT)."""

    def classify(self, x: torch.Tensor) -> torch.Tensor:
        """encode(images).x -> logits (B, n_classes)."""


@runtime_checkable
class TextModel(Protocol):
    name: str
    kind: str
    meta: dict

    def run(self, text: str, *, mask=None, qkv: bool = False, positions: bool = True,
            max_tokens: int | None = None, logits: bool = True) -> TextRun:
        """The text read by the model's own rule, attention captured."""


@runtime_checkable
class ImageModel(Protocol):
    name: str
    kind: str
    meta: dict

    def run(self, image: np.ndarray) -> ImageRun:
        """One normalised (C, S, S) image, attention captured."""
