"""Why attention, in parameter counts (the textbook, 12.1 and 12.2.3): a text of N words, each a vector of D
numbers, is N·D inputs; one dense layer from all of them to as many outputs needs (N·D)² weights + N·D biases,
and another text length needs another layer. Self-attention's Ω_v, Ω_q, Ω_k (+ biases; + Ω_c = W_O for several
heads) act on each word alike, so their count, D² + D each, does not depend on N."""
import re
from dataclasses import dataclass

import numpy as np
import torch

from i18n import N_
from model.data import text_input

COURSE_WORDS, COURSE_DIMS = 37, 1024       # 12.1: "37 words × 1024 dimensions = 37,888 inputs"
MAX_WORDS, MAX_DIMS = 100_000, 65_536      # the page's bounds
BYTES_FLOAT32 = 4


def count_words(text: str) -> int:
    """Words as the textbook counts them: runs of letters, digits and apostrophes (punctuation is not a word)."""
    return len(re.findall(r"[\w']+", text))


def dense_params(n_words: int, d: int) -> int:
    """One fully connected layer from N·D inputs to N·D outputs: (N·D)² weights + N·D biases."""
    n = n_words * d
    return n * n + n


def attention_params(d: int, output: bool = True) -> int:
    """Self-attention's projections of D → D, each D² weights + D biases: Ω_v, Ω_q, Ω_k (the textbook's φ),
    and W_O (Ω_c, which multi-head attention adds) when `output`. Independent of N."""
    return (4 if output else 3) * (d * d + d)


# (parameter name part, kind): kinds in English (N_), translated where shown
PARTS = (("rel_bias", N_("relative-position bias")), ("embed.tok", N_("token embedding")),
         ("tgt_embed.tok", N_("token embedding")), ("embed.pos", N_("position table")),
         ("tgt_embed.pos", N_("position table")), ("self_attn", N_("self-attention")),
         ("cross_attn", N_("cross-attention")), ("ffn", N_("feed-forward")), ("norm", N_("LayerNorms")),
         ("lm_head", N_("output head")))
OTHER = N_("other")


def parts(model: torch.nn.Module) -> dict[str, int]:
    """Parameters of a model by kind (the first PARTS entry whose name occurs in the parameter's name), in
    PARTS order; "other" for the rest."""
    out: dict[str, int] = {}
    for name, p in model.named_parameters():
        kind = next((label for key, label in PARTS if key in name), OTHER)
        out[kind] = out.get(kind, 0) + p.numel()
    order = [label for _, label in PARTS] + [OTHER]

    return dict(sorted(out.items(), key=lambda kv: order.index(kv[0])))


@dataclass(frozen=True)
class LengthRun:
    """The same model on the first `words` words of a text: its N tokens, the output shape (N, C), its
    parameters (counted after the run) and the dense layer N tokens × C would need."""
    words: int
    n_tokens: int
    out_shape: tuple[int, int]
    n_params: int
    dense_params: int


@torch.inference_mode()
def runs_at_lengths(model, tokenizer, rule: str, text: str, word_counts) -> list[LengthRun]:
    """Run one model on growing prefixes of `text` (word_counts words each, at most max_len tokens)."""
    words = re.findall(r"\S+", text)
    device = next(model.parameters()).device
    out = []
    for n in word_counts:
        ids = text_input.encode(tokenizer, " ".join(words[:n]), rule).ids[: model.config.max_len]
        x = model.encode(torch.tensor([ids], device=device)).x                 # (1, N, C)
        N, C = x.shape[1], x.shape[2]
        out.append(LengthRun(n, N, (N, C), sum(p.numel() for p in model.parameters()), dense_params(N, C)))
    return out


def growth(d: int, n_max: int, points: int = 60) -> dict[str, np.ndarray]:
    """Parameter counts against N = 1..n_max (log-spaced): "N" (points,), "dense", "attention" as float64."""
    n = np.unique(np.round(np.logspace(0, np.log10(max(n_max, 2)), points)).astype(np.int64))
    return {"N": n.astype(np.float64), "dense": np.array([float(dense_params(int(k), d)) for k in n]),
            "attention": np.full(len(n), float(attention_params(d)))}
