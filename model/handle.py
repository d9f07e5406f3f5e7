"""One handle per loaded model: the network, how it reads text (tokenizer and text rule), its metadata and its
kind, built by one loader from assets/<name>.* (TransformerLens's HookedTransformer owns its tokenizer the same
way). Pages, commands and benchmarks take a handle instead of loading the model, the tokenizer and the rule apart.

    h = handle.load("general_gpt")
    h.run("The cat sat.")           # TextRun: weights (L, H, N, N), tokens as the model reads them
"""
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from model import checkpoints, kinds
from model.data import text_input
from model.tasks.results import ImageRun, TextRun


@dataclass(frozen=True)
class LoadedModel:
    """A model in eval mode and what reading input takes. tokenizer, text_rule: None for a model that reads no
    text (images, rows of digits); target_tokenizer: the target side of an encoder-decoder. meta is the parsed
    assets/<name>.json, shared: never mutate it. Satisfies model.protocols.TextModel or ImageModel by kind."""
    name: str
    model: torch.nn.Module
    tokenizer: object | None
    text_rule: str | None
    meta: dict
    kind: str
    target_tokenizer: object | None = None

    @property
    def modality(self) -> str:
        """"text", "image", "translation", "symbols" or "digits" (meta["modality"])."""
        return self.meta.get("modality", "text")

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def encode(self, text: str, masks: bool = False) -> text_input.TextEncoding:
        """Text -> ids, tokens and words the way this model reads it (its text rule)."""
        return text_input.encode(self._text_tokenizer(), text, self.text_rule, masks=masks)

    def run(self, x, **options) -> TextRun | ImageRun:
        """A text model on text (model.tasks.attention_run.run_text's options: mask, qkv, positions, max_tokens,
        logits) -> TextRun; an image classifier on one normalised (C, S, S) image -> ImageRun."""
        if self.kind in kinds.TEXT_SELF_ATTENTION:
            from model.tasks.attention_run import run_text
            return run_text(self.model, self._text_tokenizer(), x, self.text_rule, **options)
        if self.kind in kinds.IMAGE_CLASSIFIERS:
            from model.tasks.image_run import run_image
            return run_image(self.model, np.asarray(x), self.meta["preprocess"]["classes"], **options)
        raise ValueError(f"model {self.name!r} of kind {self.kind!r} has no single run; see model.tasks")

    def _text_tokenizer(self):
        if self.tokenizer is None or self.text_rule is None:
            raise ValueError(f"model {self.name!r} ({self.kind}) reads no text")
        return self.tokenizer


def text_reader(meta: dict) -> tuple[object | None, str | None]:
    """(tokenizer, text rule) stored in a model's metadata; (None, None) for a model that reads no text. ValueError
    naming the model when it has a tokenizer but no known text rule."""
    if not isinstance(meta.get("tokenizer"), dict):
        return None, None
    return text_input.tokenizer_of(meta), text_input.rule_of(meta)


def load(name: str, assets: Path | None = None, device="cpu") -> LoadedModel:
    """The handle of assets/<name>.* (or `assets`/<name>.*) on `device`. Raises checkpoints.CheckpointError naming
    the file and the command that rebuilds it."""
    model, meta = checkpoints.load(name, assets, device=device)
    try:
        tokenizer, rule = text_reader(meta)
        target = text_input.tokenizer_from_spec(meta["tgt_tokenizer"]) if "tgt_tokenizer" in meta else None
    except (ValueError, KeyError) as e:
        raise checkpoints.CheckpointError(f"{name}: the tokenizer in its config cannot be built ({e}). Rebuild it "
                                          f"with `{checkpoints.retrain_hint(name)}`.") from None
    return LoadedModel(name, model, tokenizer, rule, meta, meta["kind"], target)
