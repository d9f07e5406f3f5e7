"""A class of students on the wire: each student is one thread holding one Streamlit websocket through the
balancer, as a browser tab does (serve/wire.py), never a browser. A student opens the explorer from a link
with its own sentence (its marker word "qzq0017xq" in it), then every 10-30 s (seeded) types a new sentence or picks
another head, and checks what comes back:

- latency: from sending the rerun to Streamlit's script_finished;
- errors: an exception shown, a rerun that did not finish, a wrong view (its head not zoomed), a lost socket
  whose view is not back within FAILOVER_MAX_S;
- crosstalk: any marker word of another student in what it received (every message's bytes are searched), or
  its own marker missing from the token picker;
- a lost socket (a replica killed or restarted) is reopened at once through the balancer with the student's
  cookie, and the view is asked back from the link (query string), as the browser reconnects.

serve/ramp.py adds students level by level, holds each level, and reads the replicas' memory and CPU (/proc)."""
import random
import re
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

from websockets.exceptions import ConnectionClosed

from serve import wire
from serve.balancer import REPLICA_HEADER

MARKER = re.compile(rb"qzq\d{4}xq")   # never by chance in the base64 of a figure's arrays or images (~1e-13 a byte)
FAILOVER_MAX_S = 10           # the bound: a lost student's view back within 10 s
RECONNECT_GIVE_UP_S = 120     # how long a student keeps trying (so the real failover time is measured)
HEADS = 4                     # coref_encoder, the explorer's default model: heads H0-H3
SUBJECTS = ["The cello", "The trophy", "The chef", "The hound", "The waiter", "The knapsack", "The student",
            "The raccoon", "The lawyer", "The gazpacho", "The city council", "The bus"]
VERBS = ["did not fit into", "was carried past", "was praised by", "waited for", "was hidden behind",
         "annoyed", "followed", "was cheaper than"]
OBJECTS = ["the suitcase", "the brasserie", "the creek", "the teacher", "the demonstrators", "the old station",
           "the small box", "the restaurant"]
REASONS = ["because it was too big.", "because it was too small.", "because they feared violence.",
           "because it was late.", "although it was raining.", "because they were hungry."]


def sentence(rng: random.Random, marker: str) -> str:
    """A sentence of the course's kind with the student's marker word in it."""
    return (f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(REASONS)} "
            f"Student {marker} asks why.")


@dataclass
class Sample:
    student: int
    t: float                  # seconds since the load began, when the rerun was sent
    ms: float
    kind: str                 # open, text, head, reconnect
    replica: str


@dataclass
class Tally:
    samples: list[Sample] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    crosstalk: list[str] = field(default_factory=list)
    disconnects: list[tuple[int, float, str]] = field(default_factory=list)    # (student, t, replica)
    restored: list[tuple[int, float]] = field(default_factory=list)            # (student, t of the view back)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, what: str, item) -> None:
        with self.lock:
            getattr(self, what).append(item)


class Student:
    """One student: a thread, a cookie, a websocket, a current view (text, head)."""

    def __init__(self, idx: int, url: str, t0: float, tally: Tally, stop: threading.Event, seed: int,
                 interval=(10.0, 30.0)):
        self.idx, self.url, self.t0, self.tally, self.stop = idx, url, t0, tally, stop
        self.marker = f"qzq{idx:04d}xq"
        self.rng = random.Random(seed * 100_003 + idx)
        self.interval = interval
        self.text, self.head = sentence(self.rng, self.marker), 0
        self.cookie = ""
        self.replica = "?"            # the replica that answered last (the balancer names it in every response)
        self.thread = threading.Thread(target=self.live, name=f"student-{idx}", daemon=True)

    def query(self) -> str:
        return urllib.parse.urlencode({"explorer_text": self.text, "explorer_head": f"H{self.head}"})

    def now(self) -> float:
        return time.perf_counter() - self.t0

    def _take_cookie(self, headers) -> None:
        """The balancer's cookie (this browser's id) and the replica it names in the response."""
        new = wire.set_cookies(headers)
        if new:
            self.cookie = new
        self.replica = wire.header(headers, REPLICA_HEADER) or self.replica

    def _connect(self, timeout: float = 60):
        """GET the page through the balancer (the affinity cookie comes back), then open the websocket."""
        status, headers, _ = wire.get(self.url, "/explorer?" + self.query(), cookie=self.cookie or None,
                                      timeout=timeout)
        if status != 200:
            raise ConnectionError(f"GET /explorer answered {status}")
        self._take_cookie(headers)
        ws = wire.open_socket(self.url, timeout, self.cookie)
        self._take_cookie(ws.response.headers.raw_items())
        return wire.Session(ws, timeout)

    def _check(self, msgs, kind: str, t: float, ms: float) -> bool:
        """Record the rerun; False (and an error or crosstalk) when what came back is not this student's view."""
        where = f"student {self.idx} ({self.replica}, {kind})"
        finished = msgs[-1].script_finished if msgs else None
        shown = wire.elements(msgs, "exception")
        if shown:
            self.tally.add("errors", f"{where}: exception {shown[0].message[:120]}")
            return False
        if finished != 0:
            self.tally.add("errors", f"{where}: script finished with status {finished}")
            return False
        raw = b"".join(m.SerializeToString() for m in msgs)
        others = {m.decode() for m in MARKER.findall(raw)} - {self.marker}
        picker = wire.widget(msgs, "selectbox", "explorer_token")
        if others or picker is None or self.marker not in picker.options:
            self.tally.add("crosstalk", f"{where}: saw {sorted(others)}, own marker shown: "
                                        f"{picker is not None and self.marker in picker.options}")
            return False
        headings = [h.body for h in wire.elements(msgs, "heading")]
        if f"L0 H{self.head}" not in headings:
            self.tally.add("errors", f"{where}: zoomed head is not L0 H{self.head}: {headings}")
            return False
        self.tally.add("samples", Sample(self.idx, t, ms, kind, self.replica))
        return True

    def _timed(self, kind: str, fn):
        """Run fn (a rerun), time and check it: its messages when it showed this student's view, else None."""
        t = self.now()
        t1 = time.perf_counter()
        msgs = fn()
        return msgs if self._check(msgs, kind, t, (time.perf_counter() - t1) * 1e3) else None

    def _open(self, session, kind: str):
        """Open the explorer from the link: its messages when the view is back, else None."""
        return self._timed(kind, lambda: session.run("explorer", self.query()))

    def _interactive(self, session, opened) -> bool:
        """When the view just opened (its messages) asks for its timed rerun (the interactive charts after a
        class's light first view, runtime/first_view.py), wait and rerun, as the browser does. False: the socket
        closed."""
        wait = wire.auto_rerun_s(opened or [])
        if wait is None:
            return True
        if not self._idle(session, wait):
            return False
        self._timed("interactive", lambda: session.run("explorer", self.query()))
        return True

    def live(self) -> None:
        session = None
        try:
            session = self._connect()
            if not self._interactive(session, self._open(session, "open")):
                session = self._reconnect(session)
                if session is None:
                    return
            while not self.stop.is_set():
                if not self._idle(session, self.rng.uniform(*self.interval)):
                    session = self._reconnect(session)
                    if session is None:
                        return
                    continue
                if self.stop.is_set():
                    break
                try:
                    self._change(session)
                except TimeoutError:                   # an OSError too, but the socket is alive: a slow rerun
                    raise
                except (ConnectionClosed, OSError):
                    session = self._reconnect(session)
                    if session is None:
                        return
        except TimeoutError:
            self.tally.add("errors", f"student {self.idx} ({self.replica}): a rerun did not finish in time")
        except (ConnectionClosed, OSError) as e:
            self.tally.add("errors", f"student {self.idx} ({self.replica}): {type(e).__name__}: {e}")
        finally:
            if session is not None:
                session.ws.close()

    def _idle(self, session, seconds: float) -> bool:
        """Wait like an open tab: False as soon as the socket closes (a browser notices at once)."""
        end = time.perf_counter() + seconds
        while not self.stop.is_set() and (left := end - time.perf_counter()) > 0:
            try:
                session.receive(timeout=min(left, 0.5))
            except TimeoutError:
                continue
            except (ConnectionClosed, OSError):
                return False
        return True

    def _change(self, session) -> None:
        if self.rng.random() < 0.5:
            self.text = sentence(self.rng, self.marker)
            box = session.ids.get("explorer_text")
            self._timed("text", lambda: session.change([wire.text_state(box, self.text)], self.query()))
        else:
            self.head = self.rng.choice([h for h in range(HEADS) if h != self.head])
            pick = session.ids.get("explorer_head")
            self._timed("head", lambda: session.change([wire.option_state(pick, f"H{self.head}")], self.query()))

    def _reconnect(self, old):
        """The socket closed: reopen it through the balancer and ask the view back by link, once, as the browser
        does (a second session while the first still runs would only add work). Later than FAILOVER_MAX_S is an
        error; the time it took is kept either way."""
        lost, where = self.now(), self.replica
        self.tally.add("disconnects", (self.idx, lost, where))
        try:
            old.ws.close()
        except Exception:      # noqa: BLE001 - already closed
            pass
        session = None
        while session is None and not self.stop.is_set() and self.now() - lost < RECONNECT_GIVE_UP_S:
            try:
                session = self._connect(timeout=RECONNECT_GIVE_UP_S)
            except (ConnectionClosed, OSError, ConnectionError, TimeoutError):
                time.sleep(0.25)
        try:
            opened = self._open(session, "reconnect") if session is not None else None
            if opened:
                took = self.now() - lost
                self.tally.add("restored", (self.idx, self.now()))
                if took > FAILOVER_MAX_S:
                    self.tally.add("errors", f"student {self.idx} ({where}): view back {took:.1f} s after losing "
                                             f"its socket, more than {FAILOVER_MAX_S} s")
                return session if self._interactive(session, opened) else self._reconnect(session)
        except (ConnectionClosed, OSError, TimeoutError) as e:
            self.tally.add("errors", f"student {self.idx} ({where}): reconnected, then {type(e).__name__}")
            return None
        if not self.stop.is_set():
            self.tally.add("errors", f"student {self.idx} ({where}): no view back after losing its socket")
        return None


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), linear between the closest ranks (numpy's default); NaN for no values."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = (len(s) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)
