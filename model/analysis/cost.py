"""What attention costs as N grows, measured: time and peak extra memory of dense attention, dense + a
boolean mask (masked_fill), the blocked sliding-window kernel (never N × N) and FlexAttention.

Peak memory: on CUDA, torch's allocator peak; on CPU, the process's peak resident set (Linux VmHWM,
reset through /proc/self/clear_refs) above what it held before, with glibc told to return every block
over 64 KiB to the system, so freed memory is not silently reused. Because that is process-wide,
pages run a sweep in a child process (`sweep_command`, through the server's job queue):
`python -m model.analysis.cost --n 256 1024 …`, one JSON line per row.
"""
import argparse
import ctypes
import json
import math
import statistics
import sys
import time

import torch

from i18n import N_
from model.engine.sparse import sliding_window_attention

METHODS = {"dense": N_("dense (no mask)"), "dense_masked": N_("dense + mask (masked_fill)"),   # shown: _(name)
           "sparse": N_("blocked sliding-window kernel"), "flex": N_("FlexAttention (block mask)")}


def dense(q, k, v):
    """softmax(QKᵀ/√d)V with the full (N, N) score matrix."""
    s = torch.matmul(q * (1.0 / math.sqrt(q.shape[-1])), k.transpose(-1, -2))
    return torch.matmul(torch.softmax(s, dim=-1), v)


def dense_masked(q, k, v, blocked):
    """Dense scores, then masked_fill(blocked, -inf) (blocked: (N, N) bool, True = may NOT attend)."""
    s = torch.matmul(q * (1.0 / math.sqrt(q.shape[-1])), k.transpose(-1, -2))
    s.masked_fill_(blocked, float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v)


def window_blocked(n: int, width: int, n_global: int = 0, device="cpu") -> torch.Tensor:
    """(n, n) bool, True = blocked: outside |i - j| <= width and not a global row/column (no int64 N² temporaries)."""
    allowed = torch.ones(n, n, dtype=torch.bool, device=device).triu_(-width).tril_(width)
    allowed[:n_global, :] = True
    allowed[:, :n_global] = True
    return ~allowed


def flex_fn(n: int, width: int, n_global: int = 0, device="cpu", compile: bool = False):
    """FlexAttention with a sliding-window (+ global) block mask: a function (q, k, v) -> out.
    Raises whatever FlexAttention raises where it does not run (compiling takes minutes on a busy CPU)."""
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention

    def may_attend(b, h, qi, kv):
        return ((qi - kv).abs() <= width) | (qi < n_global) | (kv < n_global)

    make = torch.compile(create_block_mask) if compile else create_block_mask
    block_mask = make(may_attend, None, None, n, n, device=device)
    attend = torch.compile(flex_attention) if compile else flex_attention
    return lambda q, k, v: attend(q, k, v, block_mask=block_mask)


# ---- measuring ------------------------------------------------------------------------------------
def release_freed_memory(threshold: int = 1 << 16, keep: int | None = None):
    """glibc: serve new blocks over `threshold` bytes with mmap and return them on free, so RSS peaks are honest
    (memory freed into the heap before this call can still be reused: measure in a fresh process). With `keep`,
    up to that many freed bytes stay mapped at the heap top, so timed loops do not fault fresh pages each call."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, threshold)                              # M_MMAP_THRESHOLD
        if keep is not None:
            libc.mallopt(-1, keep)                               # M_TRIM_THRESHOLD
    except (OSError, AttributeError):
        pass


def _rss_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field))


class PeakMemory:
    """Context manager: .extra_mib = peak memory above the level at entry (CPU: RSS; CUDA: allocator)."""

    def __init__(self, device: str):
        self.device, self.extra_mib = device, float("nan")

    def __enter__(self):
        if self.device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            self.base = torch.cuda.memory_allocated()
        else:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")                                       # reset the peak (VmHWM) to now
            self.base = _rss_kib("VmRSS:")
        return self

    def __exit__(self, *exc):
        if self.device == "cuda":
            torch.cuda.synchronize()
            self.extra_mib = (torch.cuda.max_memory_allocated() - self.base) / 2**20
        else:
            self.extra_mib = max(0, _rss_kib("VmHWM:") - self.base) / 1024


def _timed(fn, repeats: int, device: str, stat=statistics.median) -> float:
    """stat (median, or min = best of) of `repeats` calls of fn(), in ms: CPU time of the calling thread on CPU
    (one torch thread computes inline; time spent descheduled by a busy machine does not count), wall time on GPU."""
    clock = time.perf_counter if device == "cuda" else time.thread_time
    times = []
    for _repeat in range(repeats):
        if device == "cuda":
            torch.cuda.synchronize()
        t0 = clock()
        fn()
        if device == "cuda":
            torch.cuda.synchronize()
        times.append((clock() - t0) * 1e3)
    return stat(times)


def measure(method: str, n: int, width: int = 128, n_global: int = 0, dilation: int = 1, head_dim: int = 64,
            repeats: int = 3, device: str = "cpu", seed: int = 0, compile_flex: bool = True,
            best: bool = False) -> dict:
    """Time (median ms, or the best of `repeats` when best=True: steadier on a shared machine) and peak extra
    memory (MiB) of one attention call, one head, q, k, v (1, 1, n, D)."""
    if method not in METHODS:
        raise KeyError(f"unknown method {method!r}; choose one of {sorted(METHODS)}")
    gen = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(1, 1, n, head_dim, generator=gen).to(device) for _qkv in range(3))
    if method == "dense":
        def fn(): return dense(q, k, v)
    elif method == "dense_masked":
        def fn(): return dense_masked(q, k, v, window_blocked(n, width * dilation, n_global, device))
    elif method == "sparse":
        def fn(): return sliding_window_attention(q, k, v, width, dilation=dilation, n_global=n_global)
    else:
        flex = flex_fn(n, width, n_global, device, compile=compile_flex)
        flex(q, k, v)                                               # compile / warm up outside the timing

        def fn(): return flex(q, k, v)
    with torch.inference_mode():
        with PeakMemory(device) as peak:
            fn()
        ms = _timed(fn, repeats, device, min if best else statistics.median)
    return {"method": method, "n": n, "time_ms": ms, "peak_mib": peak.extra_mib}


def allocation_failed(e: BaseException) -> bool:
    """Whether an exception says memory ran out: Python's MemoryError, torch's OutOfMemoryError (a device), or an
    allocator's refusal in its text (torch's CPU allocator under the child's address-space bound, C++'s bad_alloc)."""
    return isinstance(e, (MemoryError, torch.OutOfMemoryError)) or any(
        s in str(e) for s in ("can't allocate memory", "std::bad_alloc", "out of memory"))


def sweep(methods, sizes, dense_limit: int = 16384, **kw):
    """Yield measure(...) for each size and method; dense methods above dense_limit are skipped. A method that
    fails yields {"method", "n", "error"} (and "out_of_memory": True when an allocation failed)."""
    release_freed_memory()
    for n in sizes:
        for m in methods:
            if m.startswith("dense") and n > dense_limit:
                continue
            try:
                yield measure(m, n, **kw)
            except Exception as e:                                  # e.g. FlexAttention cannot compile here
                why = f"{type(e).__name__}: {e}"
                yield {"method": m, "n": n, "error": why[:300], "out_of_memory": allocation_failed(e)}


def sweep_command(methods, sizes, width: int = 128, n_global: int = 0, device: str = "cpu", repeats: int = 3,
                  threads: int = 1) -> list[str]:
    """The child process that measures: `python -m model.analysis.cost …`, one JSON row per line."""
    return [sys.executable, "-m", "model.analysis.cost", "--n", *map(str, sizes), "--methods", *methods,
            "--width", str(width), "--n-global", str(n_global), "--device", device, "--repeats", str(repeats),
            "--threads", str(threads)]


def memory_bound(device: str) -> int | None:
    """The child's memory bound in the server's job queue: -1 (the queue's own) on CPU; None on CUDA, which maps the
    device's memory into the address space (the device's own memory bounds it there)."""
    return None if device == "cuda" else -1


def main(argv=None):
    p = argparse.ArgumentParser(description="Measure attention cost; prints one JSON object per line.")
    p.add_argument("--n", type=int, nargs="+", default=[256, 1024, 4096])
    p.add_argument("--methods", nargs="+", default=["dense", "dense_masked", "sparse"], choices=list(METHODS))
    p.add_argument("--width", type=int, default=128)
    p.add_argument("--n-global", type=int, default=0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--device", default="cpu")
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    torch.set_num_threads(args.threads)
    for row in sweep(args.methods, args.n, width=args.width, n_global=args.n_global, repeats=args.repeats,
                     device=args.device):
        print(json.dumps(row), flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
