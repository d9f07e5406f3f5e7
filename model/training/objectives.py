"""The two pre-training objectives side by side (textbook 12.6.1 and 12.7.1).

Masked LM (BERT): a few positions are hidden behind [MASK]; only those give a loss term, and
every position may look both ways. Causal LM (GPT): every position predicts the next token, so
every position but the last gives a loss term, and the causal mask stops it from seeing the answer.
"""
from dataclasses import dataclass

import numpy as np
import torch

from model.data import bpe
from model.data.word_tokenizer import MASK, SPECIALS
from model.tasks.generation import full_recompute


def choose_masked(n: int, rate: float, rng: np.random.Generator, allowed: np.ndarray | None = None) -> list[int]:
    """Exactly round(rate·k) of the k `allowed` (n,) positions, at least one, drawn without replacement:
    a fixed-size example of what a masked LM hides (sorted positions)."""
    candidates = np.flatnonzero(allowed if allowed is not None else np.ones(n, dtype=bool))
    if not len(candidates):
        return []
    k = max(1, int(round(rate * len(candidates))))
    return sorted(rng.choice(candidates, size=min(k, len(candidates)), replace=False).tolist())


def _uniform(rng, shape) -> torch.Tensor:
    if isinstance(rng, torch.Generator):
        return torch.rand(tuple(shape), generator=rng)
    return torch.from_numpy(rng.random(tuple(shape)))


def _integers(rng, low: int, high: int, n: int) -> torch.Tensor:
    if isinstance(rng, torch.Generator):
        return torch.randint(low, high, (n,), generator=rng)
    return torch.from_numpy(rng.integers(low, high, size=n))


def bert_mask(ids: torch.Tensor, maskable: torch.Tensor, rate: float, rng, vocab_size: int,
              replace: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's masking (Devlin et al. 2019): each `maskable` position is chosen independently with
    probability `rate`; a chosen position then shows [MASK] with probability 0.8, a random ordinary
    word 0.1, and itself 0.1 (replace=False: always [MASK], as when measuring a masked LM).

    ids, maskable: (B, T) int64, bool. rng: a torch.Generator or a numpy Generator (the draws, in this
    order: choice, roll, random words). Returns (inputs (B, T), labels (B, T): the hidden id where
    chosen, -100 elsewhere)."""
    chosen = (_uniform(rng, ids.shape) < rate) & maskable
    labels = torch.where(chosen, ids, -100)
    roll = _uniform(rng, ids.shape)
    inputs = ids.clone()
    inputs[chosen & ((roll < 0.8) | (not replace))] = MASK
    swap = chosen & (roll >= 0.8) & (roll < 0.9) & replace
    inputs[swap] = _integers(rng, len(SPECIALS), vocab_size, int(swap.sum()))
    return inputs, labels


def causal_lm_batch(ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """ids (B, T + 1) -> inputs (B, T), targets (B, T): position t predicts token t + 1."""
    return ids[:, :-1], ids[:, 1:]


@torch.inference_mode()
def causal_token_losses(model, ids: list[int]) -> np.ndarray:
    """-log Pr(t_{n+1} | t_≤n) at each position of a causal decoder: (N - 1,) float64, nats."""
    x = torch.tensor([ids], device=next(model.parameters()).device)
    logp = torch.log_softmax(model(x)[0].double(), dim=-1)          # (N, V)
    return -logp[:-1].gather(1, x[0, 1:, None]).squeeze(1).cpu().numpy()


@torch.inference_mode()
def masked_token_losses(model, ids: list[int], masked: list[int]) -> np.ndarray:
    """-log Pr(original | text with `masked` positions replaced by [MASK]) from an encoder's
    masked-LM head: (len(masked),) float64, nats."""
    x = torch.tensor([ids], device=next(model.parameters()).device)
    hidden = x.clone()
    hidden[0, list(masked)] = MASK
    logits = model.lm_head(model.encode(hidden).x)[0].double()     # (N, V)
    logp = torch.log_softmax(logits, dim=-1)
    return np.array([-float(logp[i, ids[i]]) for i in masked])


@dataclass(frozen=True)
class ObjectiveLosses:
    mlm: np.ndarray                  # (P,) encoder −log p at the masked pieces, nan elsewhere
    clm: np.ndarray                  # (P,) decoder −log p(piece | [BOS] and the pieces before)
    weights: np.ndarray              # (L, H, P + 1, P + 1) the decoder's attention on [BOS] + pieces


def sentence_losses(decoder, encoder, ids, masked) -> ObjectiveLosses:
    """Both objectives' loss terms (nats) on one sentence of P BPE piece ids (no special tokens): the decoder's for
    every piece, read after [BOS]; the encoder's at the `masked` piece positions, read as [CLS] pieces [SEP] with
    those pieces hidden (nan elsewhere, or everywhere when encoder is None). Both models read the same ids."""
    clm = causal_token_losses(decoder, [bpe.BOS, *ids])
    _, weights = full_recompute(decoder, [bpe.BOS, *ids])
    mlm = np.full(len(ids), np.nan)
    if encoder is not None and masked:
        mlm[list(masked)] = masked_token_losses(encoder, [bpe.CLS, *ids, bpe.SEP], [m + 1 for m in masked])
    return ObjectiveLosses(mlm, clm, weights)
