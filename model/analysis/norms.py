"""LayerNorm against BatchNorm on the same activations (the textbook, 12.4: LayerNorm is like BatchNorm but
normalises each word embedding over its own D dimensions, not across the batch). X: (T, C), T tokens as the
batch. LayerNorm standardises each row (token) over its C dimensions; BatchNorm (batch statistics, as in
training) standardises each column (dimension) over the T tokens, so one token's result depends on the others.
Only the standardising half is compared; both then apply their own learned γ, β."""
from dataclasses import dataclass

import numpy as np

from model.analysis import steps

EPS = 1e-5


def layer_norm(x: np.ndarray, eps: float = EPS) -> np.ndarray:
    """(x − mean over C) / √(var over C + ε), per token. (T, C) -> (T, C)."""
    x = np.asarray(x, dtype=np.float64)
    return (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + eps)


def batch_norm(x: np.ndarray, eps: float = EPS) -> np.ndarray:
    """(x − mean over T) / √(var over T + ε), per dimension (the batch statistics of training). (T, C) -> (T, C)."""
    x = np.asarray(x, dtype=np.float64)
    return (x - x.mean(0, keepdims=True)) / np.sqrt(x.var(0, keepdims=True) + eps)


@dataclass(frozen=True)
class NormComparison:
    """x, layer, batch: (T, C). Per-token (T,) and per-dimension (C,) means and standard deviations of each,
    and how far one token's output moves when the batch holds only the tokens up to it."""
    x: np.ndarray
    layer: np.ndarray
    batch: np.ndarray
    token: int
    layer_alone_change: float          # max |LN(x_token) computed alone − row of LN(X)|
    batch_prefix_change: float         # max |BN over tokens 0..token, its last row − row of BN(X)|

    def stats(self, which: str, axis: int) -> tuple[np.ndarray, np.ndarray]:
        """(mean, std) of "x", "layer" or "batch": axis=1 per token (T,), axis=0 per dimension (C,)."""
        a = getattr(self, which)
        return a.mean(axis), a.std(axis)


def compare(x: np.ndarray, token: int, eps: float = EPS) -> NormComparison:
    """Both norms on X (T, C); `token` is the one followed alone."""
    x = np.asarray(x, dtype=np.float64)
    ln, bn = layer_norm(x, eps), batch_norm(x, eps)
    alone = layer_norm(x[token:token + 1], eps)[0]
    prefix = batch_norm(x[:token + 1], eps)[-1]
    return NormComparison(x=x, layer=ln, batch=bn, token=token,
                          layer_alone_change=float(np.abs(alone - ln[token]).max()),
                          batch_prefix_change=float(np.abs(prefix - bn[token]).max()))


def first_norm_input(model, X: np.ndarray, layer: int, mask=None) -> np.ndarray:
    """What the layer's first LayerNorm reads (T, C): the Add's X + MultiHead(X) in a post-LN layer, X itself in
    a pre-LN one (LN before attention)."""
    X = np.asarray(X, dtype=np.float64)
    if model.config.norm == "pre":
        return X
    return X + steps.multi_head(model, X, layer, mask)["out"]
