"""One vector per sentence from an encoder's last layer, as sentence-transformers pools all-MiniLM-L6-v2: the
mean of the token states ([CLS] and [SEP] included, padding left out), scaled to length 1; the similarity of two
sentences is then the dot product of their vectors (their cosine)."""
from dataclasses import dataclass

import numpy as np
import torch

from model.data import text_input


@dataclass(frozen=True)
class Pooled:
    """tokens: each sentence's tokens (specials included); states: each sentence's last-layer states (N_i, C);
    vectors (S, C) mean-pooled and L2-normalised; similarity (S, S), their cosines."""
    tokens: tuple[tuple[str, ...], ...]
    states: tuple[np.ndarray, ...]
    vectors: np.ndarray
    similarity: np.ndarray


@torch.inference_mode()
def pool(model, tokenizer, sentences: list[str], rule: str = "cls_sep") -> Pooled:
    """Each sentence read alone (no padding), its last-layer states averaged and normalised."""
    tokens, states, vectors = [], [], []
    device = next(model.parameters()).device
    for s in sentences:
        enc = text_input.encode(tokenizer, s, rule)
        if len(enc.ids) > model.config.max_len:
            raise ValueError(f"a sentence has {len(enc.ids)} tokens; the model reads at most {model.config.max_len}")
        x = model.encode(torch.tensor([enc.ids], device=device)).x[0].double().cpu()      # (N, C)
        mean = x.mean(0)
        tokens.append(tuple(enc.tokens))
        states.append(x.numpy())
        vectors.append((mean / mean.norm().clamp_min(1e-12)).numpy())
    v = np.stack(vectors)
    return Pooled(tuple(tokens), tuple(states), v, v @ v.T)
