"""Sparse attention against dense + mask, side by side in one run, one thread, one head of dim 64,
window w = 128 on each side: speed-up and memory at N = 16k, growth t(2N)/t(N), achieved GFLOP/s
against a large matmul, dilated and 16-global windows against the plain one, and backward."""
import time

import torch

from model import cost
from model.sparse_attention import sliding_window_attention

W, D, N_BIG = 128, 64, 16384


def _matmul_gflops(n: int, repeats: int) -> float:
    a, b = torch.randn(n, n), torch.randn(n, n)
    torch.matmul(a, b)
    best = min(_time(lambda: torch.matmul(a, b)) for _ in range(repeats))
    return 2 * n**3 / best / 1e9


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _backward(n: int, repeats: int) -> dict:
    """Forward+backward time ÷ forward time of the kernel at n, and its largest gradient error against
    dense + mask (float64, N = 1000, 8 global tokens)."""
    q, k, v = (torch.randn(1, 1, n, D, requires_grad=True) for _ in range(3))

    def fwd_bwd():
        sliding_window_attention(q, k, v, W).square().sum().backward()

    fwd_bwd()
    t_fb = min(_time(fwd_bwd) for _ in range(repeats))
    with torch.no_grad():
        t_f = min(_time(lambda: sliding_window_attention(q, k, v, W)) for _ in range(repeats))
    small = 1000
    qs, ks, vs = (torch.randn(1, 2, small, 32, dtype=torch.float64, requires_grad=True) for _ in range(3))
    grads = []
    for f in (lambda: sliding_window_attention(qs, ks, vs, 50, n_global=8),
              lambda: cost.dense_masked(qs, ks, vs, cost.window_blocked(small, 50, 8))):
        f().square().sum().backward()
        grads.append([t.grad.clone() for t in (qs, ks, vs)])
        for t in (qs, ks, vs):
            t.grad = None
    err = max(float((a - b).abs().max()) for a, b in zip(*grads))
    return {"sparse_fwd_bwd_ratio": t_fb / t_f, "sparse_backward_max_grad_err": err}


def run(quick: bool = False) -> dict:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _run(quick)
    finally:
        torch.set_num_threads(threads)


def _run(quick: bool) -> dict:
    repeats = 2 if quick else 5
    cost._release_freed_memory()
    sizes = [2048, 4096, 8192, N_BIG]
    sparse = {n: cost.measure("sparse", n, W, repeats=repeats + 1) for n in sizes}
    dense_sizes = [8192, N_BIG] if quick else sizes
    dense = {n: cost.measure("dense_masked", n, W, repeats=repeats) for n in dense_sizes}
    t_s, t_d = sparse[N_BIG]["time_ms"], dense[N_BIG]["time_ms"]
    growth = [sparse[b]["time_ms"] / sparse[a]["time_ms"] for a, b in zip(sizes, sizes[1:])]
    d_growth = [dense[b]["time_ms"] / dense[a]["time_ms"] for a, b in zip(dense_sizes, dense_sizes[1:])]
    dilated = cost.measure("sparse", N_BIG, W, dilation=2, repeats=repeats + 1)["time_ms"]
    glob = cost.measure("sparse", N_BIG, W, n_global=16, repeats=repeats + 1)["time_ms"]
    useful_flops = 4 * N_BIG * (2 * W + 1) * D
    out = {
        "sparse_time_16k_ms": t_s, "dense_masked_time_16k_ms": t_d,
        "sparse_speedup_16k": t_d / t_s,
        "sparse_peak_mib_16k": sparse[N_BIG]["peak_mib"], "dense_masked_peak_mib_16k": dense[N_BIG]["peak_mib"],
        "sparse_memory_ratio_16k": sparse[N_BIG]["peak_mib"] / dense[N_BIG]["peak_mib"],
        "sparse_growth_ratio_max": max(growth), "dense_growth_ratio_max": max(d_growth),
        "sparse_gflops_16k": useful_flops / (t_s / 1e3) / 1e9,
        "matmul_gflops": _matmul_gflops(1024 if quick else 2048, repeats),
        "sparse_dilated_ratio_16k": dilated / t_s, "sparse_global16_ratio_16k": glob / t_s,
    }
    out.update(_backward(4096 if quick else N_BIG, repeats))
    return out
