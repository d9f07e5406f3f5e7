"""The one timing helper of the benchmarks: every figure is a reduction (median, best, mean) of per-call
samples on one clock (CPU time by default: robust to other processes on a shared machine)."""
import statistics
import time


def samples(fn, repeats: int, clock=time.process_time) -> list[float]:
    """Seconds on `clock` of each of `repeats` calls of fn()."""
    out = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        out.append(clock() - t0)
    return out


def cpu_ms(fn, repeats: int, reduce=statistics.median) -> float:
    """Median (or `reduce`) CPU time of the process over `repeats` calls of fn(), in ms."""
    return reduce(samples(fn, repeats)) * 1e3


def wall_ms(fn, repeats: int, reduce=statistics.median) -> float:
    """Median (or `reduce`) wall-clock time over `repeats` calls of fn(), in ms."""
    return reduce(samples(fn, repeats, time.perf_counter)) * 1e3


def thread_s(fn) -> float:
    """CPU seconds of this thread for one call of fn() (time descheduled does not count)."""
    return samples(fn, 1, time.thread_time)[0]
