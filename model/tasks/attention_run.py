"""Run a text model on typed text with attention captured and return the frozen TextRun."""
from typing import TYPE_CHECKING

import numpy as np
import torch

from i18n import N_, Message
from model.data import text_input
from model.data.word_tokenizer import WordTokenizer
from model.engine.capture import Intermediates, capturing
from model.tasks.results import TextRun

if TYPE_CHECKING:
    from model.protocols import TextModule

QKV = ("weights", "q", "k", "v", "scores")


def stack_intermediates(inters: list[Intermediates], name: str) -> np.ndarray:
    """Per-layer (1, H, ...) tensors of a batch of 1 -> (L, H, ...) float32 numpy."""
    return torch.cat([getattr(i, name) for i in inters]).float().cpu().numpy()


def capture_buffer(model, n: int) -> torch.Tensor:
    """One preallocated (L, 1, H, N, N) float32 buffer for the weights of a batch-of-1 capture: inside
    `capturing(weights_into=buf)` every layer writes into its slice, so no per-layer copies are kept."""
    layers = model.encoder.layers
    n_heads = layers[0].self_attn.n_heads
    return torch.empty(len(layers), 1, n_heads, n, n, device=next(model.parameters()).device)


def encode_captured(model: "TextModule", ids: torch.Tensor, mask=None, qkv: bool = False, positions: bool = True,
                    logits: bool = True) -> dict:
    """One captured forward pass of a batch of 1. ids: (1, N). Returns numpy arrays: weights (L, H, N, N),
    hidden (L + 1, N, C), logits (N, V) (None without `logits`: the output layer is the costliest matrix
    product at a large vocabulary; None for a model without an output layer), and with qkv also q, k, v
    (L, H, N, D) and scores (L, H, N, N)."""
    buf = None if qkv else capture_buffer(model, ids.shape[1])
    with capturing(*(QKV if qkv else ()), weights_into=buf):
        out = model.encode(ids, mask=mask, positions=positions)
    arrays = {"weights": buf[:, 0].float().cpu().numpy() if buf is not None
              else stack_intermediates(out.intermediates, "weights"),
              "hidden": torch.cat(out.hidden).float().cpu().numpy(),           # (L + 1, N, C)
              "logits": model.lm_head(out.x)[0].float().cpu().numpy()                      # (N, V)
              if logits and model.lm_head is not None else None}
    if qkv:
        arrays.update({name: stack_intermediates(out.intermediates, name) for name in QKV[1:]})
    return arrays


@torch.inference_mode()
def run_text(model: "TextModule", tokenizer: WordTokenizer, text: str, rule: str, *, mask=None, qkv: bool = False,
             positions: bool = True, max_tokens: int | None = None, logits: bool = True) -> TextRun:
    """Tokenize by the model's text rule (model.data.text_input), run it with attention captured.

    mask: optional bool (N, N) or per-layer list, True = may attend. Text longer than the model's max_len
    (or max_tokens) is cut and a notice says so. logits=False leaves TextRun.logits None.
    """
    enc = text_input.encode(tokenizer, text, rule)
    limit = min(model.config.max_len, max_tokens or model.config.max_len)
    notices = []
    if len(enc.ids) > limit:
        notices.append(Message(N_("The text has {n} tokens; this model reads at most {limit}, so only the first "
                                  "{limit} are shown."), n=len(enc.ids), limit=limit))
    enc = enc.cut(limit)
    device = next(model.parameters()).device
    ids = torch.tensor([enc.ids], device=device)
    if isinstance(mask, np.ndarray):
        mask = torch.from_numpy(mask).to(device)
    arrays = encode_captured(model, ids, mask=mask, qkv=qkv, positions=positions, logits=logits)
    return TextRun(tokens=tuple(enc.tokens), ids=np.array(enc.ids), unknown=tuple(enc.unknown),
                   notices=tuple(notices), words=enc.words, word_texts=enc.word_texts, **arrays)
