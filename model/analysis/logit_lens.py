"""The logit lens (nostalgebraist 2020): read a decoder's residual stream after the embeddings and after every layer
through the model's own final LayerNorm and unembedding, as if the stack ended there, and see which next token each
layer would predict at each position.

    lens = read_text(model, tokenizer, "The cat sat on the", "bos")
    lens.top[r, t]          # row r: 0 the embeddings, 1 + i after layer Li; the top next token at position t
    lens.prob[r, t]         # its probability; lens.final_rank[r, t]: the rank there of the token the model
                            # finally predicts at t (0 = top)
    copy_layers(lens)       # per position: the row from which the copied token is top-1 (in-context copying)

The last row is the model's own output: softmax(lm_head(final_norm(x_L))). Special tokens are never proposed (their
logits are −inf), as everywhere in the app (model.analysis.ablation.probabilities)."""
from dataclasses import dataclass

import numpy as np
import torch

from i18n import _
from model.data import bpe, text_input
from model.engine.capture import capturing
from model.engine.errors import InputError

N_SPECIAL = len(bpe.SPECIALS)        # ids below this are special tokens (BPE and word tokenizers alike)


class LensError(InputError):
    """A prompt or model the lens cannot read (empty, too long, not a decoder); readable message."""


@dataclass(frozen=True)
class Lens:
    """A decoder's residual stream read through its unembedding, R = n_layers + 1 rows (the embeddings, then after
    each layer) by T positions. ids: (T,) the prompt's ids; tokens: T strings as read (empty when read from ids);
    top: (R, T) int64 the top next token; prob: (R, T) float64 its probability; final_rank: (R, T) int64 how many
    tokens rank above the model's final prediction at that position (0 in the last row)."""
    ids: np.ndarray
    tokens: tuple[str, ...]
    top: np.ndarray
    prob: np.ndarray
    final_rank: np.ndarray

    @property
    def final(self) -> np.ndarray:
        """(T,) the model's own prediction at each position (the last row's top token)."""
        return self.top[-1]


def check(model, n_tokens: int) -> None:
    """Refuse a model that is not a decoder with an LM head, an empty prompt and one past the model's positions."""
    if model.config.kind != "decoder" or model.lm_head is None:
        raise LensError(_("The logit lens reads a decoder's next-token predictions; this model (kind "
                          "“{kind}”) makes none.").format(kind=model.config.kind))
    if n_tokens <= 1:
        raise LensError(_("The prompt is empty: type at least one word."))
    if n_tokens > model.config.max_len:
        raise LensError(_("The prompt is {n} tokens long with [BOS]; this model reads at most {limit}. Shorten "
                          "the prompt.").format(n=n_tokens, limit=model.config.max_len))


@torch.inference_mode()
def residual_stream(model, ids) -> torch.Tensor:
    """(R, T, C) float32: the residual stream of ids (T,) after the embeddings and after each of the L layers."""
    device = next(model.parameters()).device
    x = torch.as_tensor(np.asarray(ids), dtype=torch.long, device=device)[None]       # (1, T)
    with capturing():
        out = model.encode(x)
    return torch.cat(out.hidden, 0).float()                                             # (R, T, C)


@torch.inference_mode()
def lens(model, ids, tokens=()) -> Lens:
    """The logit lens of ids (T,) on a decoder: every row of the residual stream through the final norm and the LM
    head in one matrix product, (R, T, C) @ (C, V). tokens: the prompt's tokens as shown, kept in the result."""
    ids = np.asarray(ids, dtype=np.int64)
    check(model, len(ids))
    stream = residual_stream(model, ids)                                                # (R, T, C)
    logits = model.lm_head(model.encoder.final_norm(stream)).float()                   # (R, T, V)
    logits[..., :N_SPECIAL] = float("-inf")
    best, top = logits.max(-1)                                                          # (R, T)
    # p(top) = 1 / Σ exp(logit − max), summed in float64 as the app's probabilities are
    prob = 1.0 / torch.exp(logits.double() - best.double()[..., None]).sum(-1)
    final = top[-1]                                                                     # (T,)
    final_logit = logits.gather(-1, final.expand_as(top)[..., None])                   # (R, T, 1)
    rank = (logits > final_logit).sum(-1)                                               # (R, T)
    arrays = [a.cpu().numpy() for a in (top.long(), prob, rank.long())]
    for a in arrays:
        a.flags.writeable = False
    ids.flags.writeable = False
    return Lens(ids, tuple(tokens), *arrays)


def read_text(model, tokenizer, text: str, rule: str) -> Lens:
    """The lens of typed text read by the model's text rule (model.data.text_input: [BOS] first for a decoder)."""
    if not text.strip():
        raise LensError(_("The prompt is empty: type at least one word."))
    enc = text_input.encode(tokenizer, text, rule)
    check(model, len(enc.ids))
    return lens(model, enc.ids, enc.tokens)


def token_text(tokenizer, i: int) -> str:
    """Token i as the tokenizer writes it: a BPE piece (" the", with its space) or a word."""
    return tokenizer.piece(int(i)) if hasattr(tokenizer, "piece") else tokenizer.vocab[int(i)]


def copy_sources(ids) -> np.ndarray:
    """(T,) for each position t, the position j + 1 right after the latest earlier j < t holding the same token,
    whose token an induction head copies (Olsson et al. 2022: "…A B … A → B"); −1 where ids[t] did not occur before
    or is a special token."""
    ids = np.asarray(ids)
    out = np.full(len(ids), -1, dtype=np.int64)
    last: dict[int, int] = {}
    for t, i in enumerate(ids.tolist()):
        if i >= N_SPECIAL and i in last:
            out[t] = last[i] + 1
        last[i] = t
    return out


def appears_from(top: np.ndarray, target: np.ndarray) -> np.ndarray:
    """(T,) the first row r from which target[t] is the top token in every row r … R − 1 (−1 where the last row's
    top token is not target[t], or target[t] < 0). top: (R, T); target: (T,)."""
    top, target = np.asarray(top), np.asarray(target)
    hit = top == target[None]                                                          # (R, T)
    # rows from the bottom while they all hit: the run of hits that ends at the last row
    run = np.cumprod(hit[::-1], axis=0).sum(0)                                         # (T,)
    return np.where((run > 0) & (target >= 0), len(top) - run, -1)


def copy_layers(lens_: Lens) -> tuple[np.ndarray, np.ndarray]:
    """For in-context copying: (first row, source) per position. source (T,): copy_sources; first row (T,): the row
    of the lens from which the copied token ids[source] is top-1 through the last row (1 + i: after layer Li;
    0: already in the embeddings), −1 where it is not the model's final prediction or nothing is copied."""
    src = copy_sources(lens_.ids)
    target = np.where(src >= 0, lens_.ids[np.maximum(src, 0)], -1)
    return appears_from(lens_.top, target), src
