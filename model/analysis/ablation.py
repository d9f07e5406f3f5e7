"""Head ablation on one text: remove a set of heads (model.engine.ablation) and see what changes downstream:
every layer's attention, the model's output distribution at each position, the masked-word or next-token
prediction at one position, and, for a model with a pronoun cloze head, its answer for each pronoun.

Zero ablation replaces a head's output z_h = softmax(q·kᵀ/√d_k)·v by 0 (Michel et al. 2019); mean ablation by
its mean over the tokens of the text it reads (Wang et al. 2022 take the mean over a reference set). Either way
the head's own weights are unchanged: only what it sends on is removed, so only later layers can change.
"""
from dataclasses import dataclass

import numpy as np
import torch

from model.data import bpe
from model.engine.ablation import ablating
from model.engine.capture import capturing
from model.tasks.attention_run import capture_buffer

MODES = ("zero", "mean")


def head_outputs(weights: np.ndarray, v: np.ndarray) -> np.ndarray:
    """z = weights @ v for every layer and head. weights (L, H, N, N), v (L, H, N, D) -> (L, H, N, D)."""
    return np.asarray(weights, dtype=np.float32) @ np.asarray(v, dtype=np.float32)


def head_means(weights: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Each head's output averaged over the N query tokens: (L, H, D) = (mean_i weights[..., i, :]) @ v."""
    mean_rows = np.asarray(weights, dtype=np.float64).mean(-2)                      # (L, H, N)
    return np.einsum("lhn,lhnd->lhd", mean_rows, np.asarray(v, dtype=np.float64)).astype(np.float32)


def edits_for(model, heads, mode: str, means: np.ndarray | None = None) -> dict:
    """The `ablating` request for heads [(layer, head), ...]: zeros, or each head's row of means (L, H, D)."""
    if mode not in MODES:
        raise ValueError(f"ablation mode {mode!r}; choose from {MODES}")
    if mode == "mean" and means is None:
        raise ValueError("mean ablation needs the heads' mean outputs")
    layers = model.encoder.layers
    device = next(model.parameters()).device
    out: dict = {}
    for layer, h in heads:
        value = None if mode == "zero" else torch.as_tensor(means[layer, h], device=device)
        out.setdefault(layers[layer].self_attn, {})[h] = value
    return out


@dataclass(frozen=True)
class Ablated:
    """One text read with some heads removed. weights: (L, H, N, N) float32 (None when not captured); final: (N, C)
    the last hidden state (after a pre-LN stack's final LayerNorm), what the output heads read."""
    weights: np.ndarray
    final: np.ndarray


@torch.inference_mode()
def run_ablated(model, ids, heads=(), mode: str = "zero", means: np.ndarray | None = None, mask=None,
                weights: bool = True) -> Ablated:
    """A forward pass of ids (N,) with `heads` ablated (none: the model as it is), its weights captured unless
    weights=False (then Ablated.weights is None and the fast path runs)."""
    device = next(model.parameters()).device
    x = torch.tensor(np.asarray(ids), device=device)[None]                           # (1, N)
    if isinstance(mask, np.ndarray):
        mask = torch.from_numpy(mask).to(device)
    with ablating(edits_for(model, heads, mode, means)):
        if not weights:
            return Ablated(None, model.encode(x, mask=mask).x[0].float().cpu().numpy())
        buf = capture_buffer(model, x.shape[1])
        with capturing(weights_into=buf):
            out = model.encode(x, mask=mask)
    return Ablated(buf[:, 0].float().cpu().numpy(), out.x[0].float().cpu().numpy())


@torch.inference_mode()
def probabilities(model, final: np.ndarray, positions=None) -> np.ndarray:
    """Softmax of the LM head at `positions` (all by default): (P, V) float64, special tokens never proposed."""
    x = torch.tensor(final if positions is None else final[list(positions)])
    logits = model.lm_head(x.to(next(model.parameters()).device)).double().cpu()
    logits[:, :len(bpe.SPECIALS)] = float("-inf")
    return torch.softmax(logits, -1).numpy()


@torch.inference_mode()
def final_state(model, last_hidden: np.ndarray) -> np.ndarray:
    """(N, C) what the output heads read, from the last layer's output (N, C): after a pre-LN stack's final
    LayerNorm (post-LN stacks have none)."""
    return model.encoder.final_norm(torch.tensor(last_hidden)).float().numpy()


@torch.inference_mode()
def output_change(model, before: np.ndarray, after: np.ndarray, k: int = 5):
    """The LM head's distributions at every position before and after, compared in float32 (special tokens never
    proposed). before, after: (N, C) final states. Returns (KL(before ‖ after) (N,) nats, first choice changed (N,),
    TopPredictions with (N, 2, k) ids and probs)."""
    logs = []
    for final in (before, after):
        logits = model.lm_head(torch.tensor(final).to(next(model.parameters()).device)).float().cpu()
        logits[:, :len(bpe.SPECIALS)] = float("-inf")
        logs.append(torch.log_softmax(logits, -1))
    lp, lq = logs
    p = lp.exp()
    kl = (p * torch.where(p > 0, lp - lq, torch.zeros_like(lp))).sum(-1).clamp_min(0)
    top_p, top_q = p.topk(k, -1), lq.exp().topk(k, -1)
    ids = torch.stack([top_p.indices, top_q.indices], -2)                              # (N, 2, k)
    probs = torch.stack([top_p.values, top_q.values], -2)
    cross = torch.stack([p.gather(1, top_q.indices[:, :1])[:, 0], lq.exp().gather(1, top_p.indices[:, :1])[:, 0]], -1)
    return (kl.numpy().astype(np.float64), (top_p.indices[:, 0] != top_q.indices[:, 0]).numpy(),
            TopPredictions(ids.numpy(), probs.numpy().astype(np.float64), cross.numpy().astype(np.float64)))


def kl_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """KL(p ‖ q) in nats along the last axis (0·log 0 = 0)."""
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    ratio = np.log(np.where(p > 0, p, 1.0)) - np.log(np.where(p > 0, np.maximum(q, 1e-300), 1.0))
    return (p * ratio).sum(-1)


def attention_change(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Mean total-variation distance between the rows of two (L, H, N, N) weight arrays: (L, H) in [0, 1],
    0 where a head attends exactly as before (every head up to the first ablated layer)."""
    return 0.5 * np.abs(np.asarray(after, np.float64) - np.asarray(before, np.float64)).sum(-1).mean(-1)


@dataclass(frozen=True)
class TopPredictions:
    """The best k tokens before and after the ablation, at one position or (leading axis N) at each: ids (…, 2, k)
    and probs (…, 2, k), best first; cross (…, 2): the probability each run gives the other's first choice."""
    ids: np.ndarray
    probs: np.ndarray
    cross: np.ndarray


def _top(p: np.ndarray, k: int) -> np.ndarray:
    """(…, V) -> (…, k) indices of the k largest, largest first."""
    part = np.argpartition(-p, k - 1, axis=-1)[..., :k]
    order = np.argsort(-np.take_along_axis(p, part, -1), axis=-1, kind="stable")
    return np.take_along_axis(part, order, -1)


def top_predictions(before: np.ndarray, after: np.ndarray, k: int = 5) -> TopPredictions:
    """before, after: (V,) distributions at one position, or (N, V) at each."""
    ids = np.stack([_top(before, k), _top(after, k)], axis=-2)                      # (…, 2, k)
    probs = np.stack([np.take_along_axis(before, ids[..., 0, :], -1),
                      np.take_along_axis(after, ids[..., 1, :], -1)], axis=-2)
    cross = np.stack([np.take_along_axis(before, ids[..., 1, :1], -1)[..., 0],
                      np.take_along_axis(after, ids[..., 0, :1], -1)[..., 0]], axis=-1)
    return TopPredictions(ids, probs, cross)


def masked_ids(ids, positions) -> np.ndarray:
    """ids with every one of `positions` replaced by [MASK] (a masked-word question)."""
    out = np.array(ids, dtype=np.int64)
    out[list(positions)] = bpe.MASK
    return out


@torch.inference_mode()
def cloze_answers(model, final: np.ndarray, ids, words, word_texts, candidates) -> dict[int, int]:
    """For a model with a pronoun cloze head: {pronoun word index: the candidate word whose first piece the cloze
    head rates highest}. final: (N, C); words: each word's piece indices; candidates: {pronoun word: [earlier
    candidate words]}."""
    out = {}
    x = torch.tensor(final)[None]
    for w, cands in candidates.items():
        if not cands:
            continue
        logits = model.cloze_logits(x, torch.tensor([0]), torch.tensor([words[w][0]]))[0]     # (V,)
        firsts = [int(ids[words[c][0]]) for c in cands]
        out[w] = cands[int(np.argmax(logits[firsts].float().numpy()))]
    return out
