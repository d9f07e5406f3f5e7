"""One app process (a replica): `streamlit run app.py` on a loopback port, its health, its warm-up, its stop.

A replica is warmed before the balancer sends it anyone: one session opens the pages in WARM_PAGES, so the
models are loaded, the default views' runs are cached and the pages' modules imported (the first student does
not pay for them). Every replica of a class shares one cookie secret (Streamlit signs its XSRF cookie with it),
so a student sent to another replica after a fault can still upload."""
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from runtime.first_view import LIGHT_ENV
from serve import processes, wire

ROOT = Path(__file__).resolve().parent.parent
WARM_PAGES = ("", "explorer")      # home, then the explorer with its default text: the views a link opens first


def command(port: int, host: str = "127.0.0.1") -> list[str]:
    return [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true", f"--server.port={port}",
            f"--server.address={host}", "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"]


def start(port: int, log: Path, cookie_secret: str, host: str = "127.0.0.1", extra_env: dict | None = None) -> int:
    """Start a replica in its own process group (it outlives this command); returns its pid. extra_env: the class
    store's address and the students' public URL (serve/local.py)."""
    env = dict(os.environ, STREAMLIT_SERVER_COOKIE_SECRET=cookie_secret, **{LIGHT_ENV: "1"},   # a light first view
               **(extra_env or {}))
    with open(log, "ab") as out:
        proc = subprocess.Popen(command(port, host), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    return proc.pid


def healthy(url: str, timeout: float = 2) -> bool:
    try:
        return urllib.request.urlopen(f"{url}/_stcore/health", timeout=timeout).read() == b"ok"
    except OSError:
        return False


def wait_healthy(url: str, pid: int | None = None, timeout: float = 120, log: Path | None = None) -> None:
    """Until /_stcore/health answers "ok"; an error naming the log if the process died or time ran out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if healthy(url):
            return
        if pid is not None and not alive(pid):
            break
        time.sleep(0.2)
    if log is None:
        raise RuntimeError(f"the replica at {url} did not become healthy in {timeout:g} s")
    tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
    raise RuntimeError(f"the replica at {url} did not become healthy (log {log}):\n{tail}")


def warm(url: str, pages=WARM_PAGES, timeout: float = 180) -> list[str]:
    """Open each page once in one session; returns the problems seen (exceptions shown), [] when all ran."""
    problems = []
    with wire.session(url, timeout=timeout) as s:
        for page in pages:
            shown = wire.elements(s.run(page), "exception")
            problems += [f"{page or 'home'}: {e.message}" for e in shown]
    return problems


def alive(pid: int, port: int | None = None) -> bool:
    """Whether pid runs (and, given port, is the replica serving it: a pid may be reused)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    if stat.rsplit(")", 1)[1].split()[0] == "Z":         # exited, not yet reaped
        return False
    return port is None or f"--server.port={port}".encode() in cmdline


def stop(pid: int, port: int | None = None, timeout: float = 30) -> None:
    """SIGTERM the replica (Streamlit closes its sessions), SIGKILL after `timeout`; waits until it is gone."""
    if alive(pid, port):
        processes.stop(pid, alive, timeout)



def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far (from /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:                                   # gone
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident memory of a process now, in MB (from /proc); 0 once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0
