"""Shared timing helper for the benchmarks."""
import statistics
import time


def cpu_ms(fn, repeats: int) -> float:
    """Median CPU time of `repeats` calls of fn(), in ms (robust to other processes on a shared machine)."""
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append((time.process_time() - t0) * 1e3)
    return statistics.median(times)
