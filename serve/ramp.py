"""The class load test's schedule: a warm-up, then students added level by level (each level held, its reruns'
latency and the replicas' memory read), an optional fault (a replica killed) at the last level, then everyone
leaves. Bounded: levels, hold times and a deadline are arguments; loopback only (the balancer's URL)."""
import threading
import time

from serve import replicas
from serve.load import RECONNECT_GIVE_UP_S, Student, Tally, percentile

P95_TARGET_MS = 2_000


def _cpu_s(pids: dict[str, int]) -> float:
    """CPU seconds the replicas have used so far (user + system, from /proc)."""
    return sum(replicas.cpu_s(pid) for pid in pids.values() if replicas.alive(pid))


def _rss(pids: dict[str, int]) -> dict[str, float]:
    return {name: round(replicas.rss_mb(pid), 1) for name, pid in pids.items() if replicas.alive(pid)}


def _latencies(tally: Tally, t_from: float, t_to: float, kinds=("text", "head")) -> list[float]:
    with tally.lock:
        return [s.ms for s in tally.samples if s.kind in kinds and t_from <= s.t < t_to]


def _wait_opened(tally: Tally, students: list[Student], timeout: float) -> None:
    want = {s.idx for s in students}
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        with tally.lock:
            opened = {s.student for s in tally.samples if s.kind == "open"}
            failed = len(tally.errors) + len(tally.crosstalk)
        if want <= opened or len(want - opened) <= failed:
            return
        time.sleep(0.2)


def _wait_restored(tally: Tally, killed: str, t_kill: float, timeout: float) -> None:
    """Until every student of the killed replica has its view back (or given up)."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        with tally.lock:
            hit = {i for i, t, r in tally.disconnects if t >= t_kill and r == killed}
            done = {i for i, t in tally.restored if t >= t_kill} | {
                int(e.split()[1]) for e in tally.errors if e.startswith("student") and f"({killed})" in e}
        if hit <= done:
            return
        time.sleep(0.5)


def warm_up(url: str, n: int = 2, seconds: float = 6, seed: int = 0) -> Tally:
    """A few students rerunning quickly, not counted: every replica has run the explorer for new texts."""
    tally, stop, t0 = Tally(), threading.Event(), time.perf_counter()
    crowd = [Student(900 + i, url, t0, tally, stop, seed, interval=(0.3, 0.8)) for i in range(n)]
    for s in crowd:
        s.thread.start()
    time.sleep(seconds)
    stop.set()
    for s in crowd:
        s.thread.join(timeout=60)
    return tally


def _hold_level(tally: Tally, students: list[Student], level: int, pids, t0: float, hold_s: float) -> dict:
    """Hold the class at its current size for hold_s seconds; the level's row: rerun latencies, errors, memory,
    sessions per replica and the servers' CPU time per rerun."""
    t_a, cpu_a = time.perf_counter() - t0, _cpu_s(pids())
    time.sleep(hold_s)
    t_b, cpu_b = time.perf_counter() - t0, _cpu_s(pids())
    lat = _latencies(tally, t_a, t_b)
    all_runs = _latencies(tally, t_a, t_b, kinds=("open", "interactive", "text", "head", "reconnect"))
    rss = _rss(pids())
    per_replica = {}
    for s in students:
        per_replica[s.replica] = per_replica.get(s.replica, 0) + 1
    return {"sessions": level, "reruns": len(lat), "p50_ms": percentile(lat, 50),
            "p95_ms": percentile(lat, 95), "p99_ms": percentile(lat, 99), "errors": len(tally.errors),
            "crosstalk": len(tally.crosstalk), "rss_mb": rss, "sessions_per_replica": per_replica,
            "server_cpu_ms_per_rerun": (cpu_b - cpu_a) * 1e3 / len(all_runs) if all_runs else None,
            "server_cpu_share": (cpu_b - cpu_a) / (t_b - t_a)}


def _fail_over(tally: Tally, fault, t0: float, fault_hold_s: float) -> tuple[float | None, list[str]]:
    """Kill a replica (fault() -> its name) under load. Returns (seconds until the last of its students was back,
    inf when one never came back, None when none was hit; the errors other replicas' students saw meanwhile)."""
    t_kill = time.perf_counter() - t0
    errors_before = len(tally.errors)
    killed = fault()
    time.sleep(fault_hold_s)
    _wait_restored(tally, killed, t_kill, RECONNECT_GIVE_UP_S)
    with tally.lock:
        hit = {i for i, t, r in tally.disconnects if t >= t_kill and r == killed}
        back = {i: t for i, t in tally.restored if t >= t_kill}
        late = tally.errors[errors_before:]
    failover_s = max((back[i] - t_kill for i in hit if i in back), default=None)
    if hit - set(back):
        failover_s = float("inf")
    return failover_s, [e for e in late if f"({killed}" not in e]


def run(url: str, pids, levels=(10, 25, 50, 75, 100), hold_s: float = 40, interval=(10.0, 30.0), seed: int = 0,
        spawn_gap_s: float = 0.1, warmup_students: int = 2, warmup_s: float = 6, fault=None, fault_hold_s: float = 15,
        p95_target_ms: float = P95_TARGET_MS) -> dict:
    """Drive the class at `url`. pids() -> {replica name: pid} (read again after a fault). fault() kills a replica
    and returns its name. Returns flat figures (see bench/classroom.py for their names) and per-level rows."""
    cpu0 = time.process_time()
    warm = warm_up(url, warmup_students, warmup_s, seed) if warmup_students else Tally()
    base = _rss(pids())
    tally, stop, t0 = Tally(), threading.Event(), time.perf_counter()
    students: list[Student] = []
    rows, reached, at_target = [], 0, 0
    try:
        for level in levels:
            new = []
            while len(students) < level:
                s = Student(len(students), url, t0, tally, stop, seed, interval)
                students.append(s)
                new.append(s)
                s.thread.start()
                time.sleep(spawn_gap_s)
            _wait_opened(tally, new, timeout=120)
            row = _hold_level(tally, students, level, pids, t0, hold_s)
            rows.append(row)
            reached = level
            if row["reruns"] and row["p95_ms"] <= p95_target_ms and not tally.errors:
                at_target = level
            else:
                break
        failover_s, fault_errors = _fail_over(tally, fault, t0, fault_hold_s) if fault is not None else (None, None)
    finally:
        stop.set()
        for s in students:
            s.thread.join(timeout=RECONNECT_GIVE_UP_S + 30)
    top = rows[-1] if rows else {}
    end_rss = top.get("rss_mb", {})
    grown = sum(end_rss.get(k, 0) - v for k, v in base.items())
    return {"sessions": reached, "sessions_at_p95_target": at_target,
            "rerun_p50_ms": top.get("p50_ms"), "rerun_p95_ms": top.get("p95_ms"), "rerun_p99_ms": top.get("p99_ms"),
            "reruns": sum(r["reruns"] for r in rows),
            "open_p95_ms": percentile([s.ms for s in tally.samples if s.kind == "open"], 95),
            "errors": len(tally.errors), "crosstalk": len(tally.crosstalk),
            "mb_per_session": grown / reached if reached else None, "rss_mb_base": base, "rss_mb": end_rss,
            "failover_s": failover_s, "fault_errors_on_others": fault_errors,
            "disconnects": len(tally.disconnects), "warmup_errors": len(warm.errors) + len(warm.crosstalk),
            "client_cpu_s": time.process_time() - cpu0, "levels": rows,
            "server_cpu_ms_per_rerun": top.get("server_cpu_ms_per_rerun"),
            "error_examples": tally.errors[:5], "crosstalk_examples": tally.crosstalk[:5]}
