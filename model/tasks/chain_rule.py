"""A decoder's probability of a whole text by the chain rule (textbook 12.7): Pr(t₁ … t_N) = Pr(t₁)·Pr(t₂ | t₁)·…,
every factor read from one causal forward pass over [BOS] t₁ … t_N (position i predicts piece i + 1)."""
from dataclasses import dataclass

import numpy as np
import torch

from model.data import text_input


@dataclass(frozen=True)
class SentenceProbability:
    """pieces: (N,) the text's pieces as read; log_probs: (N,) float64, ln Pr(piece i | [BOS] and the pieces before
    it); cut: the text had more pieces than the model reads after [BOS] (only the first N are scored)."""
    pieces: tuple[str, ...]
    log_probs: np.ndarray
    cut: bool

    @property
    def total(self) -> float:
        """ln Pr(t₁ … t_N): the sum of the factors' logarithms (nats)."""
        return float(self.log_probs.sum())

    @property
    def perplexity(self) -> float:
        """exp(−mean ln Pr): the number of equally likely pieces the model hesitated between, on average."""
        return float(np.exp(-self.log_probs.mean()))


def sentence_probability(model, tokenizer, text: str) -> SentenceProbability:
    """Score `text` with a causal decoder that reads [BOS] first. Raises ValueError for a text without pieces."""
    enc = text_input.encode(tokenizer, text, "bos")                   # [BOS] t₁ … t_N
    if len(enc.ids) < 2:
        raise ValueError("There is no text to score.")
    limit = model.config.max_len
    ids = enc.ids[:limit]
    return SentenceProbability(tuple(enc.tokens[1:limit]), _next_log_probs(model, ids), len(enc.ids) > limit)


@torch.inference_mode()
def _next_log_probs(model, ids: list[int]) -> np.ndarray:
    """ln Pr(t_{i+1} | t_≤i) at each position of one causal pass over ids (N,): (N − 1,) float64."""
    x = torch.tensor([ids], device=next(model.parameters()).device)
    logp = torch.log_softmax(model(x)[0].double(), dim=-1)               # (N, V)
    return logp[:-1].gather(1, x[0, 1:, None]).squeeze(1).cpu().numpy()
