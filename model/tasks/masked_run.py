"""A text model read twice: under an attention mask pattern (model.engine.masks) and with the attention it was
trained with (full for an encoder, causal for a decoder), so a page can show what the pattern takes away."""
from dataclasses import dataclass

import numpy as np

from model.data import text_input
from model.engine import masks
from model.tasks.attention_run import run_text
from model.tasks.results import TextRun


@dataclass(frozen=True)
class MaskedRuns:
    masked: TextRun                  # under the pattern
    full: TextRun                    # with full (decoders: causal) attention
    mask: np.ndarray                 # (N, N) bool, True = may attend


def masked_runs(model, tokenizer, rule: str, text: str, pattern: str, params: dict,
                causal: bool = False) -> MaskedRuns:
    """The model under a mask pattern and with its own attention; a decoder keeps the causal mask in both, and
    `causal` adds it for an encoder. A pattern that adds g tokens in front of the text (extra global tokens) is
    given the model's own: the first g of the N tokens it reads (a page asks for g = the tokens its text rule puts
    there, [CLS] or [BOS]). InputError when the pattern does not fit the text."""
    encoder = model.config.kind == "encoder"
    n = min(len(text_input.encode(tokenizer, text, rule).ids), model.config.max_len)
    base = np.ones((n, n), dtype=bool) if encoder else masks.causal(n)
    pat, params = masks.PATTERNS[pattern], dict(params)
    g = min(pat.added(**params), n)
    if pat.adds:
        params[pat.adds] = g
    mask = masks.build(pattern, n - g, causal or not encoder, **params) & base            # (N, N)
    full = run_text(model, tokenizer, text, rule, mask=base)
    return MaskedRuns(run_text(model, tokenizer, text, rule, mask=mask), full, mask)
