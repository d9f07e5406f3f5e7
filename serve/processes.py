"""Stopping a server process this machine started (a replica, Redis): a signal, then SIGKILL after a grace period,
waiting until it is gone and collecting its exit status when it is this process's child."""
import os
import signal
import time


def reap(pid: int) -> None:
    """Collect the exit status when `pid` is this process's child (tests and benchmarks start them so)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def stop(pid: int, alive, timeout: float, sig: int = signal.SIGTERM, poll: float = 0.1) -> None:
    """Send `sig`, SIGKILL after `timeout` seconds; return once `alive(pid)` is False."""
    if not alive(pid):
        return
    os.kill(pid, sig)
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        reap(pid)
        time.sleep(poll)
    if alive(pid):
        os.kill(pid, signal.SIGKILL)
        while alive(pid):
            reap(pid)
            time.sleep(0.05)
    reap(pid)
