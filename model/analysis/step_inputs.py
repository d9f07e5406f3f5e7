"""What the step-by-step page follows through a text model: the tokens it reads and the vectors entering every
layer (model.analysis.steps does the arithmetic of one layer from them)."""
from dataclasses import dataclass

import numpy as np

from model.analysis import steps


@dataclass(frozen=True)
class LayerInputs:
    ids: np.ndarray                  # (T,)
    tokens: list[str]
    notices: list                    # i18n.Message, shown in the session's language
    hidden: np.ndarray               # (L + 1, T, C) float64: the vectors entering every layer, and the output


def step_inputs(model, tokenizer, text: str, rule: str, max_tokens: int) -> LayerInputs:
    """The text read by the model's rule, cut to max_tokens (and its max_len), and every layer's input."""
    ids, tokens, notices = steps.encode_text(model, tokenizer, text, rule, max_tokens)
    return LayerInputs(ids, tokens, notices, steps.layer_inputs(model, ids))
