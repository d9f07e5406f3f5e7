"""One head's queries and keys as a sum of what wrote the residual stream (the direct path, Elhage et al. 2021): the
embeddings, every earlier head's output through its slice of W_O, every earlier feed-forward block's output, and the
biases, carried to the head's layer and through its LayerNorm (pre-LN) and its slice of W_Q or W_K.

LayerNorm divides by the standard deviation of the whole stream, so it is not linear. Each LayerNorm's scale (and
mean) is frozen at its value in this run, as TransformerLens does when it attributes through LN: with the scale
frozen, LN(Σ parts) = Σ γ·(part − mean part)/σ + β, and the parts sum exactly (float64) to the stream, so to the head's
q and k. The attribution therefore says what each part wrote given this run's scales, not what removing it would do
(the scales would change, and later layers read it too: head ablation measures that). A feed-forward block counts as
one writer; what it read is not traced back through it.
"""
import copy
from dataclasses import dataclass

import numpy as np
import torch

from labels import head_label, layer_label
from model.engine.capture import capturing
from model.engine.transformer import causal_mask

EMBEDDINGS, BIASES = "embeddings", "biases"


@dataclass(frozen=True)
class StreamParts:
    """labels: (S,) who wrote each part: "embeddings", "L0 H0" … (the heads of layers before `layer`), "L0 FFN" …,
    "biases" (every bias and LayerNorm β, carried through the frozen LayerNorms); kinds: (S,) "embeddings", "head",
    "ffn" or "biases". q, k: (S, T, D) float64, each part's share of head `head` of layer `layer`'s queries and keys;
    q.sum(0) and k.sum(0) are that head's q and k (to float32 rounding of the model's own run)."""
    labels: tuple[str, ...]
    kinds: tuple[str, ...]
    layer: int
    head: int
    q: np.ndarray
    k: np.ndarray


def _through_norm(parts: torch.Tensor, norm) -> torch.Tensor:
    """parts (S, T, C) summing to u -> parts summing to LN(u), the scale frozen at u's; β goes to the last part."""
    u = parts.sum(0)                                                                  # (T, C)
    sigma = torch.sqrt(u.var(-1, unbiased=False, keepdim=True) + norm.eps)           # (T, 1)
    out = (parts - parts.mean(-1, keepdim=True)) / sigma * norm.weight
    out[-1] = out[-1] + norm.bias
    return out


def _heads_out(attn, a: torch.Tensor, mask, bias) -> torch.Tensor:
    """Each head's output through its slice of W_O: (H, T, C), float64. a: (1, T, C) the attention's input."""
    with capturing("weights", "v"):
        _, inter = attn(a, mask=mask, bias=bias)
    z = (inter.weights @ inter.v)[0]                                                 # (H, T, D)
    H, D = z.shape[0], z.shape[-1]
    w_o = attn.w_o.weight.view(-1, H, D).transpose(0, 1)                             # (H, C, D)
    return z @ w_o.transpose(1, 2)                                                   # (H, T, C)


@torch.inference_mode()
def head_inputs(model, ids, layer: int, head: int) -> StreamParts:
    """The direct-path parts of head `head` of self-attention layer `layer` of a text encoder or decoder.
    ids: (T,) one text's token ids. Runs the layers up to `layer` again in float64 (copies; the model is untouched)."""
    kind = model.config.kind
    if kind not in ("encoder", "decoder"):
        raise ValueError(f"direct-path parts are for text encoders and decoders, not {kind!r}")
    device = next(model.parameters()).device
    x_ids = torch.as_tensor(np.asarray(ids), device=device)[None]                    # (1, T)
    T = x_ids.shape[1]
    blocks = [copy.deepcopy(model.encoder.layers[i]).double() for i in range(layer + 1)]
    mask = causal_mask(T, device) if kind == "decoder" else None
    bias = model.rel_bias(T, T).double() if model.rel_bias is not None else None
    x0 = model.embed(x_ids)[0].double()                                              # (T, C)
    parts, labels, kinds = torch.stack([x0, torch.zeros_like(x0)]), [EMBEDDINGS], ["embeddings"]

    def add(new: torch.Tensor, names: list[str], what: str):
        nonlocal parts
        parts = torch.cat([parts[:-1], new, parts[-1:]])                             # the biases stay last
        labels.extend(names)
        kinds.extend([what] * len(names))

    for i, blk in enumerate(blocks[:layer]):
        x = parts.sum(0)[None]                                                       # (1, T, C)
        a = blk.norm1(x) if blk.pre else x
        add(_heads_out(blk.self_attn, a, mask, bias), [head_label(i, h) for h in range(blk.self_attn.n_heads)],
            "head")
        parts[-1] = parts[-1] + blk.self_attn.w_o.bias
        if not blk.pre:                                                              # LN(x + attention)
            parts = _through_norm(parts, blk.norm1)
        if blk.ffn is not None:
            x = parts.sum(0)[None]
            add(blk.ffn(blk.norm2(x) if blk.pre else x), [f"{layer_label(i)} FFN"], "ffn")
            if not blk.pre:
                parts = _through_norm(parts, blk.norm2)
    last = blocks[layer]
    if last.pre:
        parts = _through_norm(parts, last.norm1)
    attn = last.self_attn
    D = attn.head_dim
    rows = slice(head * D, (head + 1) * D)
    q = parts @ attn.w_q.weight[rows].T                                              # (S, T, D)
    k = parts @ attn.w_k.weight[rows].T
    q[-1] = q[-1] + attn.w_q.bias[rows]
    k[-1] = k[-1] + attn.w_k.bias[rows]
    labels.append(BIASES)
    kinds.append("biases")
    return StreamParts(tuple(labels), tuple(kinds), layer, head, q.cpu().numpy(), k.cpu().numpy())
