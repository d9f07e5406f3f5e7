"""HAProxy on loopback with the class's own configuration (serve/balancer.py) in front of the test server: the real
balancer without the class's replicas (each named replica is the one test server), for tests of its rules."""
import contextlib
import subprocess
import time
from pathlib import Path

from harness.server import free_port
from serve import balancer, wire


@contextlib.contextmanager
def class_balancer(server_url: str, folder: Path, replicas=("r1",), **kw):
    """Yield the balancer's URL; `kw` goes to balancer.render (uploads_per_window=...)."""
    port, app_port = free_port(), int(server_url.rsplit(":", 1)[1])
    folder.mkdir(parents=True, exist_ok=True)
    cfg = folder / "haproxy.cfg"
    cfg.write_text(balancer.render(port, [balancer.Replica(r, app_port) for r in replicas], folder / "haproxy.sock",
                                   **kw))
    proc = subprocess.Popen(["haproxy", "-db", "-f", str(cfg)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            with contextlib.suppress(OSError):
                if wire.get(url, "/_stcore/health", timeout=2)[0] == 200:
                    break
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
