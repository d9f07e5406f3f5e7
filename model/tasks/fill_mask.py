"""Masked-LM fill-in with an encoder (BERT, Devlin et al. 2019; textbook 12.6.1).

Hide some words behind [MASK], run the encoder once with attention captured, and read the
masked-LM head's distribution at each hidden position: the model uses context on both sides.
"""
import re
from dataclasses import dataclass

import numpy as np
import torch

from model.data.word_tokenizer import CLS, MASK, SEP, SPECIALS, WordTokenizer
from model.engine.capture import capturing
from model.engine.errors import InputError

MAX_FILL_TOKENS = 128           # longest text the fill-in view reads
_MASK_TEXT = re.compile(r"\[mask\]", re.IGNORECASE)


class FillMaskError(InputError):
    """A fill-in request the model cannot serve; the message says why."""


@dataclass
class FillMask:
    """tokens: N strings as shown ([CLS] … [SEP], masked ones as [MASK]); original: the hidden
    word at each masked position (None where the user typed [MASK]); masked: positions (M,);
    top_words / top_probs: (M, k) best fillers; original_prob: (M,) probability of the hidden
    word (nan if unknown); weights: (L, H, N, N) attention of the masked input."""
    tokens: list[str]
    masked: list[int]
    original: list[str | None]
    top_words: list[list[str]]
    top_probs: np.ndarray
    original_prob: np.ndarray
    weights: np.ndarray
    unknown: list[bool]


def encode_with_masks(tokenizer: WordTokenizer, text: str, mask_words: list[int]):
    """Tokenize text with [CLS]/[SEP]; literal "[MASK]" in the text and the word indices in
    mask_words (0 = first word) become [MASK]. Returns ids, tokens, unknown, masked, original."""
    ids, tokens, unknown, originals = [CLS], ["[CLS]"], [False], {}
    pieces = _MASK_TEXT.split(text)
    for n, piece in enumerate(pieces):
        enc = tokenizer.encode(piece)
        ids += enc.ids
        tokens += enc.tokens
        unknown += enc.unknown
        if n < len(pieces) - 1:
            originals[len(ids)] = None
            ids, tokens, unknown = ids + [MASK], tokens + ["[MASK]"], unknown + [False]
    n_words = len(ids) - 1
    for w in mask_words:
        if not 0 <= w < n_words:
            raise FillMaskError(f"Word {w} does not exist: the text has {n_words} tokens.")
        pos = w + 1
        if pos not in originals:
            originals[pos] = tokens[pos]
            ids[pos], tokens[pos] = MASK, "[MASK]"
    ids, tokens, unknown = ids + [SEP], tokens + ["[SEP]"], unknown + [False]
    masked = sorted(originals)
    return ids, tokens, unknown, masked, [originals[p] for p in masked]


@torch.inference_mode()
def fill_mask(model, tokenizer: WordTokenizer, text: str, mask_words: list[int] = (), top_k: int = 5) -> FillMask:
    """Predict every masked position of text. mask_words: indices of words to hide (0-based,
    not counting [CLS]). Special tokens are never proposed as fillers."""
    ids, tokens, unknown, masked, original = encode_with_masks(tokenizer, text, list(mask_words))
    if not masked:
        raise FillMaskError("Nothing is masked: pick at least one word to hide, or type [MASK] in the text.")
    if len(ids) > min(MAX_FILL_TOKENS, model.config.max_len):
        raise FillMaskError(f"The text has {len(ids)} tokens with [CLS] and [SEP]; the fill-in reads at most "
                            f"{min(MAX_FILL_TOKENS, model.config.max_len)}. Shorten it.")
    x = torch.tensor([ids], device=next(model.parameters()).device)
    with capturing():
        out = model.encode(x)
    logits = model.lm_head(out.x)[0].float()                            # (N, V)
    logits[:, :len(SPECIALS)] = float("-inf")
    probs = torch.softmax(logits[masked], dim=-1).cpu()                 # (M, V)
    top_p, top_i = probs.topk(min(top_k, probs.shape[-1]))
    orig_p = [float(probs[m, tokenizer.index[w]]) if w in tokenizer.index else float("nan")
              for m, w in enumerate(original)]
    weights = torch.stack([i.weights[0] for i in out.intermediates]).float().cpu().numpy()
    return FillMask(tokens=tokens, masked=masked, original=original,
                    top_words=[[tokenizer.vocab[i] for i in row] for row in top_i.tolist()],
                    top_probs=top_p.numpy(), original_prob=np.array(orig_p), weights=weights,
                    unknown=unknown)
