"""A class answering on the wire: students on the class page (app_pages/views/classroom.py) as
Streamlit websocket sessions through the balancer (serve/wire.py), never a browser. Each student joins from the
class's link with its own random id, reruns the page's question area as its timer does (every POLL_S), and answers
a question once it is shown, at a time drawn within the question's window: the pick sent as the pills send it,
timed until the page shows the store's acknowledgement ("Saved"). A lost socket (a replica killed) is reopened
through the balancer with the student's cookie and the page asked again by its link (where a pick the store holds
shows as "Your answer: … (saved)", an acknowledgement too); a pick the page could not save (the store restarting)
is sent again. The lecturer is the store's host key: it asks, and reads the counts.

What it tells (Phase): the answers acknowledged, the store's count at the end (they must agree), the
acknowledgement times, and the acknowledged answers the store no longer holds as acknowledged."""
import random
import re
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

from streamlit.proto.Alert_pb2 import Alert
from websockets.exceptions import ConnectionClosed

from classstore.store import ClassStore, Question
from serve import wire
from serve.balancer import REPLICA_HEADER
from serve.load import percentile

POLL_S = 3.0                  # the class page's timer (app_pages/views/classroom.py POLL_S)
RETRY_S = 0.5                 # a pick the page could not save is sent again after this
RECONNECT_GIVE_UP_S = 60
SAVED = "Saved: **"           # the page's acknowledgement (English)
HELD = re.compile(r"Your answer: \*\*([A-Z, ]*)\*\* \(saved")


@dataclass
class Phase:
    """One question asked of the class: each student's option, and the window its answers fall in."""
    question: Question
    picks: dict[int, int]
    start: float = 0.0
    window_s: float = 10.0
    acked: dict[int, tuple[int, ...]] = field(default_factory=dict)       # student -> its last acknowledged pick
    ack_ms: list[float] = field(default_factory=list)
    refused: int = 0
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, what: str, item) -> None:
        with self.lock:
            getattr(self, what).append(item)


def question(qid: str, n: int = 4) -> Question:
    return Question(qid=qid, text={"en": f"Which head attends to the pronoun's noun? ({qid})"},
                    options={"en": [f"L{i} H{i}" for i in range(n)]}, answer=[1], explain={"en": "Measured."})


class ClassStudent:
    """One student's phone: a thread, a cookie, a websocket on the class page, a random id."""

    def __init__(self, idx: int, url: str, code: str, seed: int, stop: threading.Event):
        self.idx, self.url, self.code, self.stop = idx, url, code, stop
        self.rng = random.Random(seed * 100_003 + idx)
        self.sid = f"{self.rng.getrandbits(64):016x}"
        self.cookie, self.session, self.fid, self.msgs = "", None, None, []
        self.replica = ""             # the replica its socket reached (the balancer names it in every response)
        self.phase: Phase | None = None
        self.due = 0.0
        self.next_poll = 0.0
        self.thread = threading.Thread(target=self.live, name=f"class-student-{idx}", daemon=True)

    def query(self) -> str:
        return urllib.parse.urlencode({"class_code": self.code, "student": self.sid})

    def _connect(self, timeout: float = 60) -> None:
        status, headers, _ = wire.get(self.url, "/classroom?" + self.query(), cookie=self.cookie or None,
                                      timeout=timeout)
        if status != 200:
            raise ConnectionError(f"GET /classroom answered {status}")
        self.cookie = wire.set_cookies(headers) or self.cookie
        ws = wire.open_socket(self.url, timeout, self.cookie)
        self.cookie = wire.set_cookies(ws.response.headers.raw_items()) or self.cookie
        self.replica = wire.header(ws.response.headers.raw_items(), REPLICA_HEADER) or self.replica
        self.session = wire.Session(ws, timeout)
        self.msgs = self.session.run("classroom", self.query())
        self.fid = wire.timed_fragment(self.msgs)
        self.next_poll = time.perf_counter() + POLL_S
        if self.fid is None:
            raise ConnectionError(f"student {self.idx}: the class page asked for no refresh: "
                                  f"{wire.texts(self.msgs)[:2]}")

    def ask(self, phase: Phase) -> None:
        """A new question: answer it at a time drawn within its window."""
        self.phase = phase
        self.due = phase.start + self.rng.uniform(0.3, max(0.4, phase.window_s - POLL_S - 0.5))

    def _pills(self, qid: str):
        return wire.widget(self.msgs, "button_group", f"classroom_{qid}")

    def _held(self, phase: Phase) -> tuple[int, ...] | None:
        """The pick the page shows as saved for this question (after a reconnect), or None. One question is asked
        at a time here, so the page's one "Your answer: … (saved" line is this question's when its pills are shown."""
        if self._pills(phase.question.qid) is None:
            return None
        for body in wire.texts(self.msgs, "markdown"):
            if m := HELD.search(body):
                return tuple(ord(c) - 65 for c in m.group(1).replace(" ", "").split(",") if c)
        return None

    def _answer(self, phase: Phase) -> None:
        pill = self._pills(phase.question.qid)
        if pill is None or pill.disabled:               # gone or revealed meanwhile: nothing to answer
            self.due = float("inf")
            return
        option = phase.picks[self.idx]
        t0 = time.perf_counter()
        self.msgs = self.session.fragment(self.fid, [wire.pills_state(pill.id, [pill.options[option].content])],
                                          self.query())
        ms = (time.perf_counter() - t0) * 1e3
        alerts = wire.elements(self.msgs, "alert")
        if any(a.format == Alert.SUCCESS and SAVED in a.body for a in alerts):
            with phase.lock:
                phase.acked[self.idx] = (option,)
                phase.ack_ms.append(ms)
        else:                                           # said why on the page (the store down): sent again soon
            with phase.lock:
                phase.refused += 1
            self.due = time.perf_counter() + RETRY_S
            self.next_poll = min(self.next_poll, self.due)

    def _step(self) -> None:
        now = time.perf_counter()
        phase = self.phase
        pending = phase is not None and self.idx in phase.picks and self.idx not in phase.acked
        if pending and now >= self.due and self._pills(phase.question.qid) is not None:
            self._answer(phase)
            return
        if now >= self.next_poll:
            self.msgs = self.session.fragment(self.fid, query=self.query(), auto=True)
            self.next_poll = time.perf_counter() + (RETRY_S if pending and now >= self.due else POLL_S)
            if pending and (held := self._held(phase)) is not None and held == (phase.picks[self.idx],):
                with phase.lock:                         # saved before the socket was lost: the page says so
                    phase.acked.setdefault(self.idx, held)
            return
        wake = min(self.next_poll, self.due if pending else self.next_poll)
        try:
            self.session.receive(timeout=max(0.01, min(0.5, wake - now)))
        except TimeoutError:
            pass

    def live(self) -> None:
        try:
            self._connect()
        except Exception as e:                 # noqa: BLE001 - counted; the student is gone
            if self.phase:
                self.phase.add("errors", f"student {self.idx}: no page: {type(e).__name__}: {e}")
            return
        while not self.stop.is_set():
            try:
                self._step()
            except (ConnectionClosed, OSError) as e:
                if isinstance(e, TimeoutError) and not isinstance(e, ConnectionClosed):
                    if self.phase:
                        self.phase.add("errors", f"student {self.idx}: a rerun did not finish in time")
                if not self._reconnect():
                    return

    def close(self) -> None:
        """After the thread ended (stop set): its socket closed (until then the caller may use the session)."""
        if self.session is not None:
            self.session.ws.close()

    def _reconnect(self) -> bool:
        """The socket closed (a replica killed): reopen it through the balancer and open the page by its link."""
        if self.phase:
            with self.phase.lock:
                self.phase.reconnects += 1
        try:
            self.session.ws.close()
        except Exception:      # noqa: BLE001 - already closed
            pass
        lost = time.perf_counter()
        while not self.stop.is_set() and time.perf_counter() - lost < RECONNECT_GIVE_UP_S:
            try:
                self._connect()
                phase = self.phase
                if phase and self.idx not in phase.acked and (held := self._held(phase)) == (
                        phase.picks.get(self.idx),):
                    with phase.lock:
                        phase.acked.setdefault(self.idx, held)
                return True
            except (ConnectionClosed, OSError, ConnectionError, TimeoutError):
                time.sleep(0.25)
        if self.phase and not self.stop.is_set():
            self.phase.add("errors", f"student {self.idx}: no page back after losing its socket")
        return False


def join(url: str, code: str, n: int, seed: int = 0, spawn_gap_s: float = 0.05) -> tuple[list[ClassStudent],
                                                                                            threading.Event]:
    """n students on the class page (their threads started, spaced by spawn_gap_s); stop.set() ends them."""
    stop = threading.Event()
    students = [ClassStudent(i, url, code, seed, stop) for i in range(n)]
    for s in students:
        s.thread.start()
        time.sleep(spawn_gap_s)
    return students, stop


def leave(students: list[ClassStudent], stop: threading.Event) -> None:
    """Every student's thread ended and socket closed."""
    stop.set()
    for s in students:
        s.thread.join(timeout=15)
        s.close()


def wait_joined(students: list[ClassStudent], timeout: float = 120) -> int:
    """Until every student has its page (or timeout); how many have."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        ready = sum(s.fid is not None for s in students)
        if ready == len(students) or not any(s.thread.is_alive() and s.fid is None for s in students):
            return ready
        time.sleep(0.2)
    return sum(s.fid is not None for s in students)


def run_phase(store: ClassStore, code: str, key: str, students: list[ClassStudent], qid: str, *,
              window_s: float = 10.0, during=None, during_at_s: float | None = None, settle_s: float = 25.0,
              seed: int = 0) -> dict:
    """Ask one question, let every student answer within window_s (each student's pick seeded), call `during()`
    (a replica killed, the store restarted) during_at_s after asking, wait until every student's answer is
    acknowledged (at most settle_s after the window), then compare with the store. Returns the figures."""
    rng = random.Random(seed)
    q = question(qid)
    phase = Phase(q, {s.idx: rng.randrange(q.n) for s in students if s.fid is not None}, window_s=window_s)
    store.ask(code, key, [q])
    phase.start = time.perf_counter()
    for s in students:
        s.ask(phase)
    if during is not None:
        time.sleep(max(0.0, phase.start + during_at_s - time.perf_counter()))
        during()
    deadline = phase.start + window_s + settle_s
    while time.perf_counter() < deadline:
        with phase.lock:
            if len(phase.acked) >= len(phase.picks):
                break
        time.sleep(0.2)
    done = time.perf_counter() - phase.start
    for _ in range(100):                             # the store may still be reading its file back
        try:
            tally = store.tally(code, qid, key)
            held = {s.idx: store.picks(code, s.sid, [qid]).get(qid) for s in students}
            break
        except Exception:                            # noqa: BLE001 - StoreDown: wait for it
            time.sleep(0.1)
    with phase.lock:
        acked = dict(phase.acked)
        lost = [i for i, p in acked.items() if held.get(i) != p]
        counts = [0] * q.n
        for p in acked.values():
            for i in p:
                counts[i] += 1
        return {"submitted": len(acked), "counted": tally.answered, "students": len(phase.picks),
                "counts_agree": list(tally.counts) == counts, "lost": len(lost),
                "ack_p50_ms": percentile(phase.ack_ms, 50), "ack_p95_ms": percentile(phase.ack_ms, 95),
                "ack_max_ms": max(phase.ack_ms, default=float("nan")), "acks_timed": len(phase.ack_ms),
                "not_saved": phase.refused, "reconnects": phase.reconnects, "all_acked_s": done,
                "errors": list(phase.errors)[:5], "lost_examples": lost[:5]}
