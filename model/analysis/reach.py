"""How far attention reaches through layers under a mask: the boolean power (mask ∨ I)ᵏ, the share of
pairs it covers, and the fewest layers after which every reachable pair is reached."""
from dataclasses import dataclass

import numpy as np

from model.engine import masks


def _bool_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Boolean matrix product: (a @ b)[i, j] = any_k a[i, k] & b[k, j]."""
    return (a.astype(np.float32) @ b.astype(np.float32)) > 0


def receptive_field(mask: np.ndarray, layers: int) -> np.ndarray:
    """(N, N) bool: entry [i, j] is True when position j's input can reach position i's output through
    `layers` attention layers, i.e. the boolean power (mask | I)^layers (the residual keeps I)."""
    step = np.asarray(mask, dtype=bool) | np.eye(len(mask), dtype=bool)
    reach = np.eye(len(mask), dtype=bool)
    for _ in range(layers):
        reach = _bool_matmul(reach, step)
    return reach


def coverage(mask: np.ndarray, max_layers: int) -> list[float]:
    """Share of the N² pairs in receptive_field(mask, k) for k = 1..max_layers."""
    step = np.asarray(mask, dtype=bool) | np.eye(len(mask), dtype=bool)
    reach, out = step, []
    for _ in range(max_layers):
        out.append(float(reach.mean()))
        reach = _bool_matmul(reach, step)
    return out


@dataclass(frozen=True)
class Connectivity:
    """layers: fewest layers after which more layers reach nothing new; everything: that reach is all
    N² pairs (False for causal or block-local patterns); reachable: the fraction of pairs reached."""
    layers: int
    everything: bool
    reachable: float


def layers_to_connect(mask: np.ndarray) -> Connectivity:
    """Fewest layers k with (mask | I)^k equal to its transitive closure, by repeated squaring then
    binary lifting (about 2·log2 N boolean products)."""
    step = np.asarray(mask, dtype=bool) | np.eye(len(mask), dtype=bool)
    powers = [step]                                     # powers[t] = step^(2^t)
    while not np.array_equal(nxt := _bool_matmul(powers[-1], powers[-1]), powers[-1]):
        powers.append(nxt)
    closure = powers[-1]
    if np.array_equal(step, closure):
        k = 0 if np.array_equal(step, np.eye(len(mask), dtype=bool)) else 1
    else:
        reach, k = np.eye(len(mask), dtype=bool), 0
        for t in range(len(powers) - 1, -1, -1):        # largest k with reach still short of the closure
            cand = _bool_matmul(reach, powers[t])
            if not np.array_equal(cand, closure):
                reach, k = cand, k + (1 << t)
        k += 1
    return Connectivity(layers=k, everything=bool(closure.all()), reachable=float(closure.mean()))


def density(mask: np.ndarray) -> float:
    """Allowed pairs ÷ N²."""
    return float(np.asarray(mask, dtype=bool).mean())


@dataclass(frozen=True)
class MaskCoverage:
    mask: np.ndarray                 # (n, n) bool
    connectivity: Connectivity
    share: list[float]               # share of pairs reached after k layers, k = 1..max_layers


def pattern_coverage(pattern: str, n: int, params: dict, causal: bool, max_layers: int) -> MaskCoverage:
    """How far a mask pattern (model.engine.masks.PATTERNS) over n tokens lets information travel through
    1..max_layers layers."""
    m = masks.build(pattern, n, causal, **params)
    return MaskCoverage(m, layers_to_connect(m), coverage(m, max_layers))
