"""Why an RNN runs step by step and attention all at once (the tutorial's opening; the lecture's "from Seq2Seq
to the Transformer"). An Elman RNN, h_t = tanh(x_t W_ih + b_ih + h_(t−1) W_hh + b_hh), needs h_(t−1) before
h_t, so N positions are N steps one after another, and the first word reaches the last through N − 1 of them;
self-attention computes all N outputs from X in one pass of matrix products, and any word reaches any other in
one. Both are timed here on the same sequence, at the same width."""
import time
from dataclasses import dataclass

import torch
from torch import nn

from model.engine.attention import MultiHeadAttention

SIZES = (16, 64, 256, 1024, 4096)       # N offered on the page
MAX_N = 4096
WIDTHS = (64, 128, 256)
REPEATS = 5                             # timed runs per method and length, at most
BUDGET_S = 1.5                          # seconds per method and length after which no further run starts


def rnn_step_by_step(cell: nn.RNNCell, x: torch.Tensor) -> tuple[torch.Tensor, int]:
    """x: (N, C) -> (hidden states (N, C), the number of sequential steps taken = N). Each step reads the
    previous step's output, so none can start before the one before it ends."""
    h = x.new_zeros(1, cell.hidden_size)
    out, steps = [], 0
    for t in range(x.shape[0]):
        h = cell(x[t:t + 1], h)                                          # (1, C): needs h from step t − 1
        out.append(h)
        steps += 1
    return torch.cat(out), steps


def attention_at_once(attn: MultiHeadAttention, x: torch.Tensor) -> tuple[torch.Tensor, int]:
    """x: (N, C) -> (self-attention outputs (N, C), 1 pass): every position from the same matrix products."""
    out, _ = attn(x[None])                                               # (1, N, C)
    return out[0], 1


def library_rnn(cell: nn.RNNCell) -> nn.RNN:
    """torch.nn.RNN with the cell's weights: the same N steps, looped inside one C++ call."""
    rnn = nn.RNN(cell.input_size, cell.hidden_size, batch_first=True).to(cell.weight_ih.device)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(rnn, f"{name}_l0").copy_(getattr(cell, name))
    return rnn


@dataclass(frozen=True)
class Timing:
    """One sequence length: the fastest of up to `repeats` runs after one warm-up run (the fastest, as timeit
    advises: other programs only ever add time), and the steps that must run one after another."""
    n: int
    d_model: int
    rnn_ms: float               # RNNCell in a Python loop
    rnn_library_ms: float       # torch.nn.RNN (C++ loop)
    attention_ms: float         # one self-attention layer (W_Q, W_K, W_V, softmax, W_O)
    rnn_steps: int
    attention_steps: int


def _fastest_ms(fn, repeats: int, device: torch.device, budget_s: float = BUDGET_S) -> float:
    """The fastest of up to `repeats` timed runs after a warm-up; fewer once `budget_s` seconds are spent."""
    times, start = [], time.perf_counter()
    for i in range(repeats + 1):                                         # the first run warms up
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        times.append((time.perf_counter() - t0) * 1e3)
        if i >= 1 and time.perf_counter() - start > budget_s:
            break
    return min(times[1:])


@torch.inference_mode()
def measure(n: int, d_model: int = 128, n_heads: int = 4, repeats: int = REPEATS, seed: int = 0,
            device: str = "cpu") -> Timing:
    """Time an RNN and one self-attention layer (random weights, both width d_model) on the same random
    sequence of n vectors. ValueError for n outside 1..MAX_N."""
    if not 1 <= n <= MAX_N:
        raise ValueError(f"N = {n} is outside 1..{MAX_N}")
    dev = torch.device(device)
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d_model, generator=gen).to(dev)                   # (N, C), the one sequence both read
    torch.manual_seed(seed)
    cell = nn.RNNCell(d_model, d_model).to(dev).eval()
    rnn = library_rnn(cell).eval()
    attn = MultiHeadAttention(d_model, n_heads).to(dev).eval()
    _, rnn_steps = rnn_step_by_step(cell, x)
    _, attn_steps = attention_at_once(attn, x)
    return Timing(n=n, d_model=d_model,
                  rnn_ms=_fastest_ms(lambda: rnn_step_by_step(cell, x), repeats, dev),
                  rnn_library_ms=_fastest_ms(lambda: rnn(x[None]), repeats, dev),
                  attention_ms=_fastest_ms(lambda: attention_at_once(attn, x), repeats, dev),
                  rnn_steps=rnn_steps, attention_steps=attn_steps)


def steps_between(n: int) -> dict[str, int]:
    """Sequential steps to compute N outputs, and steps for the first word to reach the last."""
    return {"rnn_steps": n, "attention_steps": 1, "rnn_path": max(n - 1, 0), "attention_path": 1 if n > 1 else 0}
