"""Engine figures: training throughput against torch.nn.TransformerEncoder (same config, one thread,
CPU time, measured side by side and interleaved) and the parity of reference vs explicit vs fast attention."""
import statistics
import time

import numpy as np
import torch
from torch import nn

from model import reference as R
from model.engine.attention import MultiHeadAttention
from model.engine.capture import capturing
from model.engine.config import ModelConfig
from model.engine.transformer import Stack

D_MODEL, N_LAYERS, N_HEADS, D_FF, N, BATCH = 128, 4, 4, 512, 64, 32


def _ours():
    return Stack(ModelConfig(vocab_size=1, d_model=D_MODEL, n_heads=N_HEADS, n_layers=N_LAYERS, d_ff=D_FF), N_LAYERS)


def _torch():
    layer = nn.TransformerEncoderLayer(D_MODEL, N_HEADS, D_FF, dropout=0.0, batch_first=True)
    return nn.TransformerEncoder(layer, N_LAYERS, enable_nested_tensor=False)


def _step_fn(model):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model.train()
    is_ours = isinstance(model, Stack)

    def step(x):
        y = model(x).x if is_ours else model(x)
        loss = y.square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return step


def train_throughput(steps: int, rounds: int) -> dict:
    torch.manual_seed(0)
    x = torch.randn(BATCH, N, D_MODEL)
    fns = {"ours": _step_fn(_ours()), "torch": _step_fn(_torch())}
    for f in fns.values():                       # warm up
        for _ in range(3):
            f(x)
    times = {k: [] for k in fns}
    for _ in range(rounds):                      # interleave so both see the same machine load
        for k, f in fns.items():
            t0 = time.process_time()          # CPU time: robust to other processes on a shared machine
            for _ in range(steps):
                f(x)
            times[k].append((time.process_time() - t0) / steps)
    tps = {k: BATCH * N / statistics.median(v) for k, v in times.items()}
    return {"train_tokens_per_s_ours": round(tps["ours"]), "train_tokens_per_s_torch": round(tps["torch"]),
            "train_throughput_ratio_vs_torch": tps["ours"] / tps["torch"]}


def parity() -> dict:
    """Largest |difference| between the three attention paths. Weights ~ N(0, 1/C), so inputs, q, k, v
    and outputs are all unit-scale."""
    torch.manual_seed(0)
    m = MultiHeadAttention(64, 4).eval()
    for p in m.parameters():
        nn.init.normal_(p, std=64 ** -0.5)
    x = torch.randn(1, 32, 64)
    worst = 0.0
    for mask in (None, torch.ones(32, 32, dtype=torch.bool).tril()):
        with torch.no_grad():
            fast, _ = m(x, mask=mask)
            with capturing():
                explicit, cap = m(x, mask=mask)
        T = lambda t: t.detach().double().numpy()
        ref, ref_w, _ = R.multi_head_attention(
            T(x[0]), T(m.w_q.weight).T, T(m.w_k.weight).T, T(m.w_v.weight).T, T(m.w_o.weight).T, 4,
            T(m.w_q.bias), T(m.w_k.bias), T(m.w_v.bias), T(m.w_o.bias), mask=None if mask is None else mask.numpy())
        worst = max(worst, float(np.abs(ref - T(explicit[0])).max()), float(np.abs(ref - T(fast[0])).max()),
                    float(np.abs(ref_w - T(cap.weights[0])).max()))
    return {"parity_max_abs_err": worst}


def run(quick: bool = False) -> dict:
    torch.set_num_threads(1)                       # one thread: CPU time is then a fair clock
    return {**parity(), **train_throughput(steps=3 if quick else 8, rounds=3 if quick else 7)}
