"""The class setup on one machine: N replicas and HAProxy on loopback, and the class's answer store (Redis,
serve/store.py) beside them, their pids and ports in a state file, so `up`, `status`, `drain`, `ready`, `restart`
and `down` are separate commands (python -m serve ...). Every replica gets the store's address and the public URL
students are sent to (the class's join link) in its environment."""
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from classstore.store import ENV as STORE_ENV
from classstore.store import PUBLIC_URL_ENV
from serve import balancer, processes, replicas, store

STATE_DIR = replicas.ROOT / "runs" / "serve"
HOST = "127.0.0.1"


def default_replicas() -> int:
    """Two replicas per core, at most 8: one Python process serves its sessions one rerun at a time (the GIL), and
    on this 2-core machine 4 replicas held 100 students at a third of 2 replicas' p95, and a killed replica's
    students got their views back in 10 s instead of 45 (docs/class-setup.md)."""
    return min(8, 2 * (os.cpu_count() or 1))


@dataclass
class ReplicaState:
    name: str
    port: int
    pid: int
    log: str

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"


@dataclass
class ClassState:
    port: int
    cookie_secret: str
    haproxy_pid: int = 0
    replicas: list[ReplicaState] = field(default_factory=list)
    state_dir: str = str(STATE_DIR)
    store_pid: int = 0
    public_url: str = ""

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def store_dir(self) -> Path:
        return self.dir / "store"

    @property
    def store_url(self) -> str:
        return store.url(self.store_dir)

    def replica_env(self) -> dict[str, str]:
        """What every replica is told: where the class store is, and the address students reach."""
        return {STORE_ENV: self.store_url, PUBLIC_URL_ENV: self.public_url or self.url}

    @property
    def dir(self) -> Path:
        return Path(self.state_dir)

    @property
    def sock(self) -> Path:
        return self.dir / "haproxy.sock"

    def replica(self, name: str) -> ReplicaState:
        for r in self.replicas:
            if r.name == name:
                return r
        raise KeyError(f"no replica named {name!r}; the replicas are {', '.join(r.name for r in self.replicas)}")

    def save(self) -> None:
        path = self.dir / "state.json"
        path.write_text(json.dumps(asdict(self), indent=1))
        path.chmod(0o600)                                   # it holds the cookie secret


def load(state_dir: Path = STATE_DIR) -> ClassState | None:
    path = Path(state_dir) / "state.json"
    if not path.exists():
        return None
    raw = json.loads(path.read_text())
    raw["replicas"] = [ReplicaState(**r) for r in raw["replicas"]]
    return ClassState(**raw)


def port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as the servers bind: TIME_WAIT is no obstacle
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


def _start_replica(state: ClassState, name: str, port: int) -> ReplicaState:
    log = state.dir / f"{name}.log"
    pid = replicas.start(port, log, state.cookie_secret, HOST, extra_env=state.replica_env())
    return ReplicaState(name, port, pid, str(log))


def _ready_replica(r: ReplicaState, warm_pages, errors: list) -> None:
    try:
        replicas.wait_healthy(r.url, r.pid, log=Path(r.log))
        problems = replicas.warm(r.url, warm_pages)
        if problems:
            errors.append(f"{r.name}: warm-up showed " + "; ".join(problems))
    except Exception as e:      # noqa: BLE001 - reported with the replica's name, after every replica was tried
        errors.append(f"{r.name}: {e}")


def default_public_url(port: int, bind: str = HOST) -> str:
    """The balancer's address as a phone would type it: loopback stays loopback; a balancer open to the network
    (--bind 0.0.0.0) is named by this machine's host name (pass --public-url where phones know it otherwise)."""
    host = HOST if bind in (HOST, "localhost") else (socket.gethostname() if bind in ("0.0.0.0", "::") else bind)
    return f"http://{host}:{port}"


def up(n: int, port: int, state_dir: Path = STATE_DIR, first_replica_port: int | None = None,
       warm_pages=replicas.WARM_PAGES, uploads_per_window: int | None = None, bind: str = HOST,
       public_url: str | None = None, frame_ancestors: tuple[str, ...] = ()) -> ClassState:
    """Start the class store (Redis), then n warmed replicas on the ports after `port` (or from
    first_replica_port), then HAProxy on bind:port (loopback unless told; the replicas always listen on loopback).
    public_url: the address students' phones reach, used in the class's join link (default: the balancer's).
    frame_ancestors: the sites that may show the app in a frame (default none: a page framing it shows nothing)."""
    balancer.check_frame_ancestors(frame_ancestors)
    state_dir = Path(state_dir)
    old = load(state_dir)
    if old and (replicas.alive(old.haproxy_pid) or any(replicas.alive(r.pid, r.port) for r in old.replicas)
                or (old.store_pid and store.alive(old.store_pid))):
        raise RuntimeError(f"a class is already up at {old.url}: python -m serve down first")
    if not 1 <= n <= 16:
        raise ValueError("replicas: between 1 and 16")
    if shutil.which("haproxy") is None:
        raise RuntimeError("haproxy is missing: apt-get install -y haproxy")
    if shutil.which("redis-server") is None:
        raise RuntimeError("redis-server is missing: apt-get install -y redis-server")
    if public_url is not None and not public_url.startswith(("http://", "https://")):
        raise ValueError(f"--public-url must start with http:// or https://: {public_url!r}")
    first = first_replica_port or port + 1
    ports = [port] + list(range(first, first + n))
    busy = [p for p in ports if not port_free(p)]
    if busy:
        raise RuntimeError(f"port(s) {', '.join(map(str, busy))} on {HOST} are in use")
    state_dir.mkdir(parents=True, exist_ok=True)
    state = ClassState(port=port, cookie_secret=secrets.token_hex(32), state_dir=str(state_dir),
                       public_url=(public_url or default_public_url(port, bind)).rstrip("/"))
    state.store_pid = store.start(state.store_dir, state.dir / "store.log")
    state.save()
    state.replicas = [_start_replica(state, f"r{i + 1}", p) for i, p in enumerate(ports[1:])]
    state.save()
    errors: list[str] = []
    threads = [threading.Thread(target=_ready_replica, args=(r, warm_pages, errors)) for r in state.replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        down(state_dir)
        raise RuntimeError("the class did not start:\n" + "\n".join(errors))
    kw = {} if uploads_per_window is None else {"uploads_per_window": uploads_per_window}
    kw["frame_ancestors"] = frame_ancestors
    cfg = state.dir / "haproxy.cfg"
    cfg.write_text(balancer.render(port, [balancer.Replica(r.name, r.port) for r in state.replicas], state.sock,
                                   HOST, bind=bind, **kw))
    check = subprocess.run(["haproxy", "-c", "-q", "-f", str(cfg)], capture_output=True, text=True)
    if check.returncode:
        down(state_dir)
        raise RuntimeError(f"haproxy refused {cfg}:\n{check.stdout}{check.stderr}")
    with open(state.dir / "haproxy.log", "ab") as log:
        state.haproxy_pid = subprocess.Popen(["haproxy", "-db", "-f", str(cfg)], stdout=log, stderr=subprocess.STDOUT,
                                             stdin=subprocess.DEVNULL, start_new_session=True).pid
    state.save()
    _wait_balancer(state)
    return state


def _wait_balancer(state: ClassState, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if replicas.healthy(state.url) and balancer.servers(state.sock):
                return
        except OSError:
            pass
        if not replicas.alive(state.haproxy_pid):
            break
        time.sleep(0.1)
    log = (state.dir / "haproxy.log").read_text(errors="replace")[-1500:]
    down(state.dir)
    raise RuntimeError(f"haproxy did not start on {state.url}:\n{log}")


def down(state_dir: Path = STATE_DIR) -> bool:
    """Stop HAProxy, then every replica; False when no class was up."""
    state = load(state_dir)
    if state is None:
        return False
    if state.haproxy_pid and replicas.alive(state.haproxy_pid):
        os.kill(state.haproxy_pid, signal.SIGTERM)
        for _ in range(100):
            processes.reap(state.haproxy_pid)
            if not replicas.alive(state.haproxy_pid):
                break
            time.sleep(0.05)
    threads = [threading.Thread(target=replicas.stop, args=(r.pid, r.port)) for r in state.replicas]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if state.store_pid:
        store.stop(state.store_pid)                   # after the replicas: SIGTERM, Redis closes its file
    (state.dir / "state.json").unlink(missing_ok=True)
    state.sock.unlink(missing_ok=True)
    return True


def status(state_dir: Path = STATE_DIR) -> dict:
    """The balancer's URL and each replica: pid, port, process alive, health, HAProxy's state and open connections,
    memory."""
    state = _required(state_dir)
    seen = balancer.servers(state.sock) if replicas.alive(state.haproxy_pid) else {}
    rows = []
    for r in state.replicas:
        up_ = replicas.alive(r.pid, r.port)
        rows.append({"name": r.name, "port": r.port, "pid": r.pid, "alive": up_,
                     "healthy": up_ and replicas.healthy(r.url), "rss_mb": round(replicas.rss_mb(r.pid), 1) if up_
                     else None, **seen.get(r.name, {"status": "unknown", "scur": 0, "stot": 0})})
    return {"url": state.url, "balancer_alive": replicas.alive(state.haproxy_pid), "replicas": rows,
            "public_url": state.public_url, "store": {"url": state.store_url, "pid": state.store_pid,
                                                      "alive": bool(state.store_pid) and store.alive(state.store_pid)}}


def restart_store(state_dir: Path = STATE_DIR, kill: bool = False) -> int:
    """Stop the class store (SIGTERM, or SIGKILL with kill=True, as a crash would) and start it again on the same
    files: its append-only file is read back, so every acknowledged answer is there. Returns the new pid. The
    replicas reconnect by themselves; answers sent meanwhile are refused with a message, never lost silently."""
    state = _required(state_dir)
    if state.store_pid:
        store.stop(state.store_pid, sig=signal.SIGKILL if kill else signal.SIGTERM)
    state.store_pid = store.start(state.store_dir, state.dir / "store.log")
    state.save()
    return state.store_pid


def drain(name: str, state_dir: Path = STATE_DIR) -> None:
    """No new students for this replica; its students' requests still reach it (their cookie)."""
    state = _required(state_dir)
    state.replica(name)
    balancer.set_state(state.sock, name, "drain")


def ready(name: str, state_dir: Path = STATE_DIR) -> None:
    """The replica takes new students again."""
    state = _required(state_dir)
    state.replica(name)
    balancer.set_state(state.sock, name, "ready")


def restart(name: str, state_dir: Path = STATE_DIR, wait: float = 0, warm_pages=replicas.WARM_PAGES) -> ReplicaState:
    """Drain the replica, wait up to `wait` s for its students to leave, take it out of the balancer, restart
    it, warm it and put it back (returns once HAProxy's own checks see it up). The other replicas and their
    sessions are not touched; students still on this one lose their websocket and reconnect through the balancer
    to another replica, their view in the link."""
    state = _required(state_dir)
    r = state.replica(name)
    balancer.set_state(state.sock, name, "drain")
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and balancer.servers(state.sock).get(name, {}).get("scur", 0) > 0:
        time.sleep(0.5)
    balancer.set_state(state.sock, name, "maint")
    replicas.stop(r.pid, r.port)
    new = _start_replica(state, name, r.port)
    state.replicas = [new if x.name == name else x for x in state.replicas]
    state.save()
    errors: list[str] = []
    _ready_replica(new, warm_pages, errors)
    if errors:
        raise RuntimeError("\n".join(errors))
    balancer.set_state(state.sock, name, "ready")
    balancer.wait_up(state.sock, name)               # back when the balancer's checks send students to it again
    return new


def _required(state_dir: Path) -> ClassState:
    state = load(state_dir)
    if state is None:
        raise RuntimeError(f"no class is up (no {Path(state_dir) / 'state.json'}): python -m serve up first")
    return state
