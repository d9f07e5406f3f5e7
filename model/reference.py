"""Plain numpy float64 Transformer equations, one function each: the oracle for parity tests and
the numbers on the "step by step" page. Row form throughout: tokens are rows, X is (T, C)."""
import numpy as np


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """softmax(x)_i = exp(x_i - max x) / Σ_j exp(x_j - max x); rows of -inf give zeros."""
    x = np.asarray(x, dtype=np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m)
    s = e.sum(axis=axis, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def scores(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """S = Q Kᵀ. Q: (Tq, d_k), K: (Tk, d_k) -> (Tq, Tk)."""
    return Q @ K.T


def scale(S: np.ndarray, d_k: int) -> np.ndarray:
    """S / √d_k."""
    return S / np.sqrt(d_k)


def apply_mask(S: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """S where mask (True = may attend), -inf elsewhere."""
    return S if mask is None else np.where(mask, S, -np.inf)


def attention(Q, K, V, mask=None, bias=None):
    """Attention(Q, K, V) = softmax(QKᵀ/√d_k + B) V, B a (Tq, Tk) bias or none. Returns (Z (Tq, d_v),
    weights (Tq, Tk))."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    S = scale(scores(Q, K), Q.shape[-1]) + (0.0 if bias is None else np.asarray(bias, dtype=np.float64))
    weights = softmax(apply_mask(S, mask))
    return weights @ V, weights


def attention_column_form(Q, K, V, mask=None):
    """The textbook's column form: tokens are columns, Z' = V' · Softmax[K'ᵀQ' / √D_q] with
    Q' = Qᵀ (d_k, Tq), K' = Kᵀ, V' = Vᵀ and the softmax over each column. Returns Z' (d_v, Tq)."""
    Qc, Kc, Vc = (np.asarray(a, dtype=np.float64).T for a in (Q, K, V))
    S = apply_mask((Kc.T @ Qc) / np.sqrt(Qc.shape[0]), None if mask is None else np.asarray(mask).T)
    return Vc @ softmax(S, axis=0)


def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, b_Q=None, b_K=None, b_V=None, b_O=None,
                         mask=None, context=None, bias=None):
    """MultiHead(X) = Concat(head_1..head_H) W_O, head_h = Attention(X W_Q^h, C W_K^h, C W_V^h).

    X: (Tq, C); context C: (Tk, C) (default X); W_*: (C, C) acting on rows (x @ W); bias: (H, Tq, Tk) added
    to head h's scaled scores, or None. Returns (out (Tq, C), weights (H, Tq, Tk), heads (H, Tq, C/H))."""
    X = np.asarray(X, dtype=np.float64)
    Ctx = X if context is None else np.asarray(context, dtype=np.float64)
    zero = np.zeros(X.shape[-1])
    Q = X @ W_Q + (zero if b_Q is None else b_Q)
    K = Ctx @ W_K + (zero if b_K is None else b_K)
    V = Ctx @ W_V + (zero if b_V is None else b_V)
    d = X.shape[-1] // n_heads
    heads, weights = [], []
    for h in range(n_heads):
        sl = slice(h * d, (h + 1) * d)
        z, w = attention(Q[:, sl], K[:, sl], V[:, sl], mask, None if bias is None else bias[h])
        heads.append(z)
        weights.append(w)
    out = np.concatenate(heads, axis=-1) @ W_O + (zero if b_O is None else b_O)
    return out, np.stack(weights), np.stack(heads)


def layer_norm(x, gamma=None, beta=None, eps: float = 1e-5):
    """LN(x) = γ (x - μ) / √(σ² + ε) + β over the last axis (σ² the biased variance)."""
    x = np.asarray(x, dtype=np.float64)
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    return y * (1.0 if gamma is None else gamma) + (0.0 if beta is None else beta)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU(x) = x·Φ(x) = ½x(1 + erf(x/√2)), the exact form (Hendrycks & Gimpel 2016)."""
    from math import erf
    return 0.5 * x * (1.0 + np.vectorize(erf)(x / np.sqrt(2.0)))


def feed_forward(x, W1, b1, W2, b2, activation: str = "relu"):
    """FFN(x) = act(x W1 + b1) W2 + b2, position by position; act = max(0, ·) or GELU (erf form)."""
    h = np.asarray(x, dtype=np.float64) @ W1 + b1
    if activation == "relu":
        h = np.maximum(h, 0.0)
    else:
        h = gelu(h)
    return h @ W2 + b2


def transformer_layer(X, p: dict, n_heads: int, norm: str = "post", mask=None, activation="relu", bias=None):
    """One encoder layer (bias: (H, T, T) added to the attention scores, or None).
    post-LN: H = LN(X + MHA(X)); Y = LN(H + FFN(H)).
    pre-LN: H = X + MHA(LN(X)); Y = H + FFN(LN(H)).
    p: W_Q, W_K, W_V, W_O (C, C), b_Q.. b_O, ln1_g, ln1_b, W1 (C, F), b1, W2 (F, C), b2, ln2_g, ln2_b."""
    def mha(x):
        return multi_head_attention(x, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], n_heads, p["b_Q"],
                                    p["b_K"], p["b_V"], p["b_O"], mask=mask, bias=bias)[0]

    def ffn(x):
        return feed_forward(x, p["W1"], p["b1"], p["W2"], p["b2"], activation)

    def ln1(x):
        return layer_norm(x, p["ln1_g"], p["ln1_b"])

    def ln2(x):
        return layer_norm(x, p["ln2_g"], p["ln2_b"])

    if norm == "post":
        H = ln1(X + mha(X))
        return ln2(H + ffn(H))
    H = X + mha(ln1(X))
    return H + ffn(ln2(H))


def worked_example() -> dict:
    """The lecture's worked example: seed 42, two tokens of width 4, d_k = 3, drawn in the order
    X, W_Q, W_K, W_V, each rounded to 4 decimals. Returns the arrays of every step."""
    rng = np.random.RandomState(42)      # same stream as np.random.seed(42); np.random.randn
    X = rng.randn(2, 4).round(4)
    W_Q, W_K, W_V = (rng.randn(4, 3).round(4) for _ in range(3))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = scores(Q, K)
    scaled = scale(S, 3)
    weights = softmax(scaled)
    return {"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V, "Q": Q, "K": K, "V": V,
            "scores": S, "scaled": scaled, "weights": weights, "Z": weights @ V}


def attention_loop(Q, K, V, mask=None):
    """Attention one query vector at a time, as a learner would on paper: for query i,
    s_j = q_i · k_j / √d_k, a = softmax(s) over the allowed keys, z_i = Σ_j a_j v_j.
    Q: (Tq, d_k), K: (Tk, d_k), V: (Tk, d_v) -> Z (Tq, d_v)."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    d_k = Q.shape[-1]
    Z = np.zeros((Q.shape[0], V.shape[-1]))
    for i, q in enumerate(Q):
        allowed = [j for j in range(K.shape[0]) if mask is None or mask[i][j]]
        if not allowed:
            continue                      # a fully masked row attends to nothing: z_i = 0
        s = [float(np.dot(q, K[j])) / d_k ** 0.5 for j in allowed]          # one query-key pair at a time
        top = max(s)
        e = [float(np.exp(x - top)) for x in s]
        for a, j in zip(e, allowed):
            Z[i] += (a / sum(e)) * V[j]
    return Z


def exercise() -> dict:
    """The lecture's exercise: scores 3 and 1 for one query against two keys, d_k = 4,
    v1 = [1, 0], v2 = [0, 1]. Returns scores (2,), scaled (2,), exp (2,), weights (2,), V (2, 2), z (2,)."""
    s = np.array([3.0, 1.0])
    V = np.array([[1.0, 0.0], [0.0, 1.0]])
    scaled = scale(s, 4)
    weights = softmax(scaled)
    return {"scores": s, "d_k": 4, "scaled": scaled, "exp": np.exp(scaled), "weights": weights,
            "V": V, "z": weights @ V}


def bert_encoder(ids, tensors: dict, n_heads: int, eps: float = 1e-12):
    """A BERT encoder (post-LN, GELU, learned positions, token type 0, an embedding LayerNorm) read straight
    from Hugging Face's BertModel tensor names (embeddings.*, encoder.layer.i.*; Linear weights (out, in)).
    ids: (T,) ints. Returns (states: (L + 1, T, C), the embeddings first; weights: (L, H, T, T))."""
    t = {k: np.asarray(v, dtype=np.float64) for k, v in tensors.items()}
    ids = np.asarray(ids)

    def linear(x, name):
        return x @ t[f"{name}.weight"].T + t[f"{name}.bias"]

    def norm(x, name):
        return layer_norm(x, t[f"{name}.weight"], t[f"{name}.bias"], eps)

    x = (t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][:len(ids)]
         + t["embeddings.token_type_embeddings.weight"][0])
    states, weights = [norm(x, "embeddings.LayerNorm")], []
    n_layers = len({k.split(".")[2] for k in t if k.startswith("encoder.layer.")})
    for i in range(n_layers):
        p = f"encoder.layer.{i}."
        W = {n: t[f"{p}attention.self.{m}.weight"].T for n, m in (("W_Q", "query"), ("W_K", "key"), ("W_V", "value"))}
        b = {n: t[f"{p}attention.self.{m}.bias"] for n, m in (("b_Q", "query"), ("b_K", "key"), ("b_V", "value"))}
        out, w, _ = multi_head_attention(states[-1], W_O=t[f"{p}attention.output.dense.weight"].T,
                                         b_O=t[f"{p}attention.output.dense.bias"], n_heads=n_heads, **W, **b)
        h = norm(states[-1] + out, f"{p}attention.output.LayerNorm")
        ffn = linear(gelu(linear(h, f"{p}intermediate.dense")), f"{p}output.dense")
        states.append(norm(h + ffn, f"{p}output.LayerNorm"))
        weights.append(w)
    return np.stack(states), np.stack(weights)
