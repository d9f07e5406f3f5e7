"""One attention head's arithmetic pulled out of a live model as float64 numpy: X entering the layer,
the head's W_Q/W_K/W_V slices, Q, K, V, QKᵀ, the √d_k scaling, softmax, Z (Vaswani et al. 2017,
eq. 1), the multi-head concatenation + W_O, and the model's own explicit path to check them against.

Row form throughout (tokens are rows). The engine's nn.Linear computes y = x Wᵀ + b, so head h's
W_Q in row form is w_q.weight[h*D:(h+1)*D, :].T, shape (C, D).
"""
from dataclasses import dataclass, fields

import numpy as np
import torch

from i18n import N_, Message, _
from model import reference
from model.analysis.softmax_saturation import (  # noqa: F401 (part of this module's interface)
    CHANGES,
    SAME_WITHIN,
    random_scores,
    saturation,
    softmax_example,
    without_scaling,
)
from model.data import text_input
from model.engine.capture import KEEPABLE, capturing
from model.engine.transformer import causal_mask

MAX_TOKENS = 32          # T×T matrices beyond this stop being readable on a slide


def _np(t) -> np.ndarray:
    return t.detach().float().cpu().numpy().astype(np.float64)


@dataclass
class HeadSteps:
    """Every intermediate of one head. T tokens, C = d_model, D = d_k = d_v = C / H."""
    tokens: list[str]
    layer: int
    head: int
    norm: str               # "post" (attention reads X) or "pre" (attention reads LN(X))
    X: np.ndarray           # (T, C) the token vectors entering the layer
    X_attn: np.ndarray      # (T, C) what attention reads: X (post-LN) or LN₁(X) (pre-LN)
    W_Q: np.ndarray         # (C, D)
    W_K: np.ndarray         # (C, D)
    W_V: np.ndarray         # (C, D)
    b_Q: np.ndarray         # (D,)
    b_K: np.ndarray         # (D,)
    b_V: np.ndarray         # (D,)
    Q: np.ndarray           # (T, D) = X_attn W_Q + b_Q
    K: np.ndarray           # (T, D)
    V: np.ndarray           # (T, D)
    scores: np.ndarray      # (T, T) Q Kᵀ
    scaled: np.ndarray      # (T, T) Q Kᵀ / √D, -inf where the mask forbids
    weights: np.ndarray     # (T, T) softmax over each row
    Z: np.ndarray           # (T, D) weights V
    mask: np.ndarray | None = None   # (T, T) bool, True = may attend

    @property
    def d_k(self) -> int:
        return self.Q.shape[1]

    def arrays(self) -> dict[str, np.ndarray]:
        """name -> array for downloads (exact float64 values)."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if isinstance(getattr(self, f.name), np.ndarray)}


def encode_text(model, tokenizer, text: str, rule: str, max_tokens: int = MAX_TOKENS):
    """Token ids the way the model reads them (its text rule, model.data.text_input), cut to max_tokens.
    Returns (ids (T,) int64, tokens, notices as i18n.Message: str() gives them in the language of the session that
    shows them)."""
    enc = text_input.encode(tokenizer, text, rule)
    limit = min(max_tokens, model.config.max_len)
    notices = []
    if len(enc.ids) > limit:
        notices.append(Message(N_("The text has {n} tokens; this page follows the first {limit}."), n=len(enc.ids),
                               limit=limit))
    if any(enc.unknown[:limit]):
        unknown = sorted({t for t, u in zip(enc.tokens[:limit], enc.unknown[:limit]) if u})
        notices.append(Message(N_("Not in the model's vocabulary (read as [UNK]): {pieces}"),
                               pieces=", ".join(unknown)))
    return np.array(enc.ids[:limit], dtype=np.int64), enc.tokens[:limit], notices


def model_mask(model, T: int) -> np.ndarray | None:
    """The mask the model applies by itself: its own sparse pattern when it has one, causal (T, T) for
    a decoder, None (full attention) for a plain encoder."""
    own = model.pattern_mask(T)
    if own is not None:
        return own.cpu().numpy()
    return causal_mask(T).numpy() if model.config.kind == "decoder" else None


@torch.inference_mode()
def layer_inputs(model, ids: np.ndarray, positions: bool = True) -> np.ndarray:
    """The vectors entering every layer and the last output. ids: (T,) -> (L + 1, T, C) float64
    (hidden[0] = embeddings + positions; hidden[l] enters layer l)."""
    device = next(model.parameters()).device
    with capturing():
        out = model.encode(torch.as_tensor(ids, device=device)[None], positions=positions)
    return np.stack([_np(h[0]) for h in out.hidden])


def _attn(model, layer: int):
    return model.encoder.layers[layer].self_attn


def head_params(model, layer: int, head: int) -> dict[str, np.ndarray]:
    """Head h's slices in row form: W_Q, W_K, W_V (C, D) and b_Q, b_K, b_V (D,)."""
    attn = _attn(model, layer)
    D = attn.head_dim
    rows = slice(head * D, (head + 1) * D)
    out = {}
    for name, lin in (("Q", attn.w_q), ("K", attn.w_k), ("V", attn.w_v)):
        out[f"W_{name}"] = _np(lin.weight[rows, :]).T                                     # (C, D)
        out[f"b_{name}"] = _np(lin.bias[rows]) if lin.bias is not None else np.zeros(D)   # (D,)
    return out


def layer_norm_params(norm_module) -> tuple[np.ndarray, np.ndarray, float]:
    """(γ (C,), β (C,), ε) of an nn.LayerNorm."""
    return _np(norm_module.weight), _np(norm_module.bias), float(norm_module.eps)


def attention_input(model, X: np.ndarray, layer: int, norm: str | None = None) -> np.ndarray:
    """What self-attention reads in this layer: X itself (post-LN) or LN₁(X) (pre-LN). (T, C)."""
    norm = norm or model.config.norm
    if norm == "post":
        return X
    g, b, eps = layer_norm_params(model.encoder.layers[layer].norm1)
    return reference.layer_norm(X, g, b, eps)


def head_steps(model, X: np.ndarray, layer: int, head: int, mask=None, tokens=None,
               norm: str | None = None) -> HeadSteps:
    """One head of one layer, every step in float64. X: (T, C) entering the layer;
    mask: (T, T) bool or None (True = may attend)."""
    X = np.asarray(X, dtype=np.float64)
    norm = norm or model.config.norm
    p = head_params(model, layer, head)
    X_attn = attention_input(model, X, layer, norm)
    Q = X_attn @ p["W_Q"] + p["b_Q"]                    # (T, D)
    K = X_attn @ p["W_K"] + p["b_K"]
    V = X_attn @ p["W_V"] + p["b_V"]
    S = Q @ K.T                                           # (T, T)
    scaled = reference.apply_mask(S / np.sqrt(Q.shape[1]), mask)
    weights = reference.softmax(scaled)
    tokens = list(tokens) if tokens is not None else [str(i) for i in range(X.shape[0])]
    return HeadSteps(tokens=tokens, layer=layer, head=head, norm=norm, X=X, X_attn=X_attn, **p,
                     Q=Q, K=K, V=V, scores=S, scaled=scaled, weights=weights, Z=weights @ V,
                     mask=None if mask is None else np.asarray(mask, dtype=bool))


def output_projection(model, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """W_O in row form (C, C) and b_O (C,): out = concat(heads) W_O + b_O."""
    w_o = _attn(model, layer).w_o
    b = _np(w_o.bias) if w_o.bias is not None else np.zeros(w_o.weight.shape[0])
    return _np(w_o.weight).T, b


def multi_head(model, X: np.ndarray, layer: int, mask=None, norm: str | None = None) -> dict:
    """All heads of a layer and how they recombine. Returns heads (H, T, D), weights (H, T, T),
    concat (T, C) = [Z_1 … Z_H], W_O (C, C), b_O (C,), out (T, C) = concat W_O + b_O."""
    H = _attn(model, layer).n_heads
    steps = [head_steps(model, X, layer, h, mask, norm=norm) for h in range(H)]
    concat = np.concatenate([s.Z for s in steps], axis=1)              # (T, C)
    W_O, b_O = output_projection(model, layer)
    return {"heads": np.stack([s.Z for s in steps]), "weights": np.stack([s.weights for s in steps]),
            "concat": concat, "W_O": W_O, "b_O": b_O, "out": concat @ W_O + b_O}


@torch.inference_mode()
def explicit_path(model, X: np.ndarray, layer: int, mask=None, norm: str | None = None) -> dict:
    """The model's own explicit attention path (MultiHeadAttention inside capturing(q, k, v, scores)) on
    the same layer input, float32 torch. Returns q, k, v (H, T, D), scores (H, T, T) scaled and
    masked, weights (H, T, T), heads (H, T, D) = weights v, out (T, C)."""
    attn = _attn(model, layer)
    device = next(model.parameters()).device
    x_in = attention_input(model, np.asarray(X, dtype=np.float64), layer, norm)
    x = torch.tensor(x_in, dtype=torch.float32, device=device)[None]               # (1, T, C)
    m = None if mask is None else torch.as_tensor(np.asarray(mask, dtype=bool), device=device)
    with capturing(*KEEPABLE):
        out, cap = attn(x, mask=m)
    return {"q": _np(cap.q[0]), "k": _np(cap.k[0]), "v": _np(cap.v[0]), "scores": _np(cap.scores[0]),
            "weights": _np(cap.weights[0]), "heads": _np((cap.weights @ cap.v)[0]), "out": _np(out[0])}


def agreement(steps: HeadSteps, model, mask=None) -> dict[str, float]:
    """Largest |difference| between this float64 head and three other computations of it:
    the column form V·Softmax[KᵀQ/√D] (transposed back), the per-vector loop, and the model's
    explicit float32 path on the same input. The names are English (N_): translate them where shown."""
    col = reference.attention_column_form(steps.Q, steps.K, steps.V, mask).T        # (T, D)
    loop = reference.attention_loop(steps.Q, steps.K, steps.V, mask)
    live = explicit_path(model, steps.X, steps.layer, mask, steps.norm)
    h = steps.head
    return {N_("column form"): float(np.abs(col - steps.Z).max()),
            N_("per-vector loop"): float(np.abs(loop - steps.Z).max()),
            N_("model explicit path (Z)"): float(np.abs(live["heads"][h] - steps.Z).max()),
            N_("model explicit path (weights)"): float(np.abs(live["weights"][h] - steps.weights).max())}


# ---- the layer: Add & Norm and the FFN, followed for one token ------------------------------------
@dataclass
class TraceStep:
    """One stop of a token's vector through the layer. vector: (C,) or (d_ff,) for the FFN hidden."""
    name: str
    formula: str
    vector: np.ndarray

    @property
    def norm(self) -> float:
        return float(np.linalg.norm(self.vector))

    @property
    def mean(self) -> float:
        return float(self.vector.mean())

    @property
    def var(self) -> float:
        return float(self.vector.var())       # biased, as LayerNorm uses


def layer_trace(model, X: np.ndarray, layer: int, token: int, mask=None, norm: str | None = None) -> list[TraceStep]:
    """Follow token `token` through attention, residual, LayerNorm, FFN, residual, LayerNorm with the
    layer's own weights. norm="post": LN(x + MHA(x)) then LN(h + FFN(h)) as in the paper; "pre":
    x + MHA(LN(x)) then h + FFN(LN(h)). X: (T, C) entering the layer. Step names and formulas in the current
    language."""
    norm = norm or model.config.norm
    blk = model.encoder.layers[layer]
    X = np.asarray(X, dtype=np.float64)
    ln1, ln2 = layer_norm_params(blk.norm1), layer_norm_params(blk.norm2)
    W1, b1 = _np(blk.ffn.lin1.weight).T, _np(blk.ffn.lin1.bias)        # (C, F), (F,)
    W2, b2 = _np(blk.ffn.lin2.weight).T, _np(blk.ffn.lin2.bias)        # (F, C), (C,)
    act = model.config.activation

    def hidden(x):                    # (C,) -> (F,): the FFN's first layer and its activation
        h = x @ W1 + b1
        return np.maximum(h, 0.0) if act == "relu" else reference.gelu(h)

    def ffn(x):
        return hidden(x) @ W2 + b2

    a = multi_head(model, X, layer, mask, norm)["out"][token]                # (C,)
    x = X[token]
    act_name = "ReLU" if act == "relu" else "GELU"
    if norm == "post":
        r1 = x + a
        ln1_steps = _norm_steps("h = LayerNorm₁", r1, ln1)
        h = ln1_steps[-1].vector
        f = ffn(h)
        return [TraceStep("x", _("enters the layer"), x),
                TraceStep(_("attention"), "MultiHead(X)[t]", a),
                TraceStep(_("x + attention"), _("residual"), r1),
                *ln1_steps,
                TraceStep(_("FFN hidden ({activation})").format(activation=act_name), f"{act_name}(h W₁ + b₁)",
                          hidden(h)),
                TraceStep("FFN(h)", f"{act_name}(h W₁ + b₁) W₂ + b₂", f),
                TraceStep("h + FFN(h)", _("residual"), h + f),
                *_norm_steps("y = LayerNorm₂", h + f, ln2)]
    ln1_steps = _norm_steps("LayerNorm₁(x)", x, ln1)
    h = x + a
    ln2_steps = _norm_steps("LayerNorm₂(h)", h, ln2)
    f = ffn(ln2_steps[-1].vector)
    return [TraceStep("x", _("enters the layer"), x),
            *ln1_steps,
            TraceStep(_("attention"), "MultiHead(LN(X))[t]", a),
            TraceStep(_("h = x + attention"), _("residual"), h),
            *ln2_steps,
            TraceStep(_("FFN hidden ({activation})").format(activation=act_name), f"{act_name}(LN(h) W₁ + b₁)",
                      hidden(ln2_steps[-1].vector)),
            TraceStep("FFN(LN(h))", f"{act_name}(LN(h) W₁ + b₁) W₂ + b₂", f),
            TraceStep("y = h + FFN", _("residual"), h + f)]


def _norm_steps(name: str, v: np.ndarray, params) -> list[TraceStep]:
    """LayerNorm in its two halves: standardise (mean 0, variance ≈ 1), then γ ⊙ · + β."""
    g, b, eps = params
    n = (v - v.mean()) / np.sqrt(v.var() + eps)
    return [TraceStep(_("{name}: standardised").format(name=name), "(v − μ) / √(σ² + ε)", n),
            TraceStep(name, _("γ ⊙ standardised + β"), g * n + b)]

