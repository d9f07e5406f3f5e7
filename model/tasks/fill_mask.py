"""Masked-LM fill-in with an encoder on any text (BERT, Devlin et al. 2019; textbook 12.6.1), in byte-level BPE
pieces (model/data/bpe.py).

Hide pieces behind [MASK] (typed as `[MASK]` or `<mask>`, or whole words picked by index: a word of k pieces
becomes k [MASK] tokens), run the encoder once with attention captured, and read the masked-LM head's
distribution at each masked position: softmax over every ordinary token (special tokens are never proposed).
"""
from dataclasses import dataclass

import numpy as np
import torch

from i18n import _, ngettext
from model.data import bpe, text_input
from model.engine.capture import capturing
from model.engine.errors import InputError


class FillMaskError(InputError):
    """A fill-in request the encoder cannot serve; the message says why."""


@dataclass(frozen=True)
class MaskedText:
    """A text read as [CLS] pieces [SEP] with some pieces masked. ids, tokens: (N,) the input and its readable
    pieces, masked ones "[MASK]"; masked: (M,) positions of the mask tokens; original_ids: (M,) the hidden
    piece's id (-1 where the mask was typed); hidden_word: (M,) index into `words` of the word a masked piece
    belongs to (-1 where typed); words: the W whole words that may be hidden (no special token, no typed mask),
    word_pieces: (W,) how many pieces each has."""
    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    masked: tuple[int, ...]
    original_ids: tuple[int, ...]
    hidden_word: tuple[int, ...]
    words: tuple[str, ...]
    word_pieces: tuple[int, ...]


def encode_with_masks(tokenizer: bpe.BPETokenizer, text: str, hide_words=()) -> MaskedText:
    """[CLS] text [SEP] in BPE pieces; a typed `[MASK]` or `<mask>` is the mask token (every other special
    spelling stays plain text), and each piece of the words numbered in hide_words (0 = the first word of
    MaskedText.words) becomes [MASK]. FillMaskError for a word number outside the text."""
    if not isinstance(tokenizer, bpe.BPETokenizer):
        raise TypeError(f"fill-in reads byte-level BPE pieces, not a {type(tokenizer).__name__}")
    enc = text_input.encode(tokenizer, text, "cls_sep", masks=True)
    ids, tokens = list(enc.ids), list(enc.tokens)
    hideable = [(w, pieces) for w, pieces in zip(enc.word_texts, enc.words)
                if all(ids[k] >= len(bpe.SPECIALS) for k in pieces)]
    hidden = {k: -1 for k, i in enumerate(ids) if i == bpe.MASK}          # position -> word index (-1: typed)
    for w in hide_words:
        if not 0 <= w < len(hideable):
            span = _(" (0 to {last})").format(last=len(hideable) - 1) if hideable else ""
            raise FillMaskError(ngettext("Word {w} does not exist: the text has {n} word{span}.",
                                         "Word {w} does not exist: the text has {n} words{span}.",
                                         len(hideable)).format(w=w, n=len(hideable), span=span))
        for k in hideable[w][1]:
            hidden[k] = w
    masked = tuple(sorted(hidden))
    original = tuple(ids[k] if hidden[k] >= 0 else -1 for k in masked)
    for k in masked:
        ids[k], tokens[k] = bpe.MASK, "[MASK]"
    return MaskedText(tuple(ids), tuple(tokens), masked, original, tuple(hidden[k] for k in masked),
                      tuple(w for w, _ in hideable), tuple(len(p) for _, p in hideable))


@dataclass(frozen=True)
class FillMask:
    """The encoder's fill-in of one masked text. text: the MaskedText it read (tokens (N,), masked (M,), …);
    top_ids, top_probs: (M, k) the best fillers, best first; top_pieces: their readable pieces; original_prob:
    (M,) probability of the hidden piece (nan where the mask was typed); original_rank: (M,) its rank among
    the ordinary tokens, 1 = the model's first choice (0 where typed); weights: (L, H, N, N) float32 attention
    of the masked input."""
    text: MaskedText
    top_ids: np.ndarray
    top_pieces: tuple[tuple[str, ...], ...]
    top_probs: np.ndarray
    original_prob: np.ndarray
    original_rank: np.ndarray
    weights: np.ndarray

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.text.tokens

    @property
    def masked(self) -> tuple[int, ...]:
        return self.text.masked


@torch.inference_mode()
def fill_mask(model, tokenizer: bpe.BPETokenizer, text: str, hide_words=(), top_k: int = 5) -> FillMask:
    """Predict every masked piece of text (see encode_with_masks) with the encoder's masked-LM head
    (model.lm_head). FillMaskError when nothing is masked or the text is longer than the model's max_len
    pieces with [CLS] and [SEP]."""
    mt = encode_with_masks(tokenizer, text, hide_words)
    if not mt.masked:
        raise FillMaskError(_("Nothing is masked: type [MASK] or <mask> in the text, or pick a word to hide."))
    limit = model.config.max_len
    if len(mt.ids) > limit:
        raise FillMaskError(_("The text is {n} pieces long with [CLS] and [SEP]; this encoder reads at most {limit}. "
                              "Shorten it.").format(n=len(mt.ids), limit=limit))
    x = torch.tensor([mt.ids], device=next(model.parameters()).device)
    with capturing():
        out = model.encode(x)
    logits = model.lm_head(out.x[0, list(mt.masked)]).float()             # (M, V)
    logits[:, :len(bpe.SPECIALS)] = float("-inf")
    probs = torch.softmax(logits, dim=-1).cpu().double()                   # (M, V)
    top_p, top_i = probs.topk(min(top_k, probs.shape[-1] - len(bpe.SPECIALS)))
    orig_p, rank = np.full(len(mt.masked), np.nan), np.zeros(len(mt.masked), dtype=np.int64)
    for m, i in enumerate(mt.original_ids):
        if i >= 0:
            orig_p[m] = float(probs[m, i])
            rank[m] = int((probs[m] > probs[m, i]).sum()) + 1
    weights = torch.stack([i.weights[0] for i in out.intermediates]).float().cpu().numpy()   # (L, H, N, N)
    top_ids, top_probs = top_i.numpy(), top_p.numpy()
    for a in (top_ids, top_probs, orig_p, rank, weights):
        a.flags.writeable = False
    return FillMask(mt, top_ids, tuple(tuple(tokenizer.piece(i) for i in row) for row in top_ids.tolist()),
                    top_probs, orig_p, rank, weights)
