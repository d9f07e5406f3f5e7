"""A real class on loopback: HAProxy in front of two replicas (python -m serve's own `up`), students speaking
Streamlit's websocket protocol through it (serve/load.py). Each student sticks to one replica and sees only its
own words; the balancer refuses what the app would refuse (upload size and rate, issue 18 item 8) and passes the
longest link the app makes; a replica drains and restarts while the other replica's students notice nothing and
its own get their view back through the balancer within 10 s."""
import http.client
import threading
import time
import urllib.parse

from serve import balancer, limits, local, ramp, replicas, wire
from serve.load import FAILOVER_MAX_S, Student, Tally


def _replica_of(headers) -> str | None:
    return wire.header(headers, balancer.REPLICA_HEADER)


def test_students_stick_to_one_replica_and_see_only_their_own_words(klass):
    pids = lambda: {r.name: r.pid for r in local.load(klass.dir).replicas}     # noqa: E731
    out = ramp.run(klass.url, pids, levels=(4,), hold_s=8, interval=(0.2, 0.6), warmup_students=0, spawn_gap_s=0.05)
    assert out["errors"] == 0 and out["crosstalk"] == 0, out["error_examples"] + out["crosstalk_examples"]
    assert out["disconnects"] == 0
    assert out["reruns"] >= 4, out["levels"]
    assert out["levels"][0]["sessions_per_replica"] == {"r1": 2, "r2": 2}    # leastconn spreads, the cookie keeps


def test_the_websocket_reaches_the_replica_its_browsers_first_request_did(klass):
    status, headers, _ = wire.get(klass.url, "/")
    first = _replica_of(headers)
    assert status == 200 and first in ("r1", "r2")
    before = {k: v["scur"] for k, v in balancer.servers(klass.sock).items()}
    with wire.session(klass.url, cookie=wire.set_cookies(headers), timeout=60) as s:
        for _ in range(3):                                       # reconnections are not needed: one socket, held
            assert not wire.elements(s.run(""), "exception")
        now = {k: v["scur"] for k, v in balancer.servers(klass.sock).items()}
    assert now[first] == before[first] + 1 and sum(now.values()) == sum(before.values()) + 1


def test_a_students_first_view_is_light_then_interactive(klass):
    with wire.session(klass.url, timeout=60) as s:
        first = s.run("explorer")
        second = s.run("explorer")                             # the rerun the first view asks for
    assert not wire.elements(first, "exception") and not wire.elements(second, "exception")
    assert wire.elements(first, "plotly_chart") == []           # no plotly.js before the first picture
    assert sum('class="first-view"' in h.body for h in wire.elements(first, "html")) == 2   # grid and zoomed head
    assert len(wire.elements(second, "plotly_chart")) >= 3


def _put(url: str, length: int, body: bytes | None = None, chunked: bool = False, method: str = "PUT",
         path: str = "/_stcore/upload_file/not-a-session/not-a-file") -> tuple[int, bytes]:
    """A request to an upload route (a file id the server never issued): headers, then `body` (or nothing)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.putrequest(method, path)
        if chunked:
            conn.putheader("Transfer-Encoding", "chunked")
        else:
            conn.putheader("Content-Length", str(length))
        conn.putheader("Content-Type", "multipart/form-data; boundary=x")
        conn.endheaders()
        if body is not None:
            conn.send(body)
        if chunked:
            conn.send(b"0\r\n\r\n")
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_the_balancer_refuses_uploads_the_app_would_refuse_and_floods(klass):
    most = limits.upload_bytes_max()
    status, text = _put(klass.url, most + 1)                       # refused on its header: no byte forwarded
    assert status == 413 and b"larger than 8 MiB" in text
    status, text = _put(klass.url, 0, chunked=True)
    assert status == 411 and b"no Content-Length" in text
    status, text = _put(klass.url, most, body=b"x" * most)          # within the bound: the replica answers
    assert status in (400, 403) and b"class balancer" not in text, (status, text[:200])   # no session, no XSRF
    answers = [_put(klass.url, 4, body=b"tiny")[0] for _ in range(5)]  # refused ones above were not counted
    assert all(a in (400, 403) for a in answers[:4]) and answers[4] == 429, answers   # 5 per 10 s here (the fixture)
    status, text = _put(klass.url, most + 1, method="POST", path="/")
    assert status == 413 and b"body too large" in text


def test_the_longest_link_passes_and_a_longer_request_is_refused_at_the_balancer(klass):
    text = "猫" * limits.URL_TEXT_MAX                                 # 18 KB percent-encoded: past HAProxy's default
    status, _, body = wire.get(klass.url, "/explorer?" + urllib.parse.urlencode({"explorer_text": text}))
    assert status == 200 and b"<html" in body.lower()
    status, _, _ = wire.get(klass.url, "/explorer?explorer_text=" + "a" * (limits.request_head_max() + 4096))
    assert status in (400, 414)
    assert all(replicas.healthy(r.url) for r in klass.replicas)


def test_a_replica_drains_and_restarts_without_touching_the_others_sessions(klass):
    tally, stop, t0 = Tally(), threading.Event(), time.perf_counter()
    students = [Student(i, klass.url, t0, tally, stop, seed=1, interval=(0.3, 0.8)) for i in range(4)]
    for s in students:
        s.thread.start()
        time.sleep(0.05)
    deadline = time.perf_counter() + 60
    while len({x.student for x in tally.samples}) < 4 and time.perf_counter() < deadline:
        time.sleep(0.2)
    on = {s.idx: s.replica for s in students}
    assert sorted(on.values()) == ["r1", "r1", "r2", "r2"], on
    local.drain("r1", klass.dir)
    assert balancer.servers(klass.sock)["r1"]["status"] == "DRAIN"
    for _ in range(3):                                            # a new student never lands on a draining replica
        assert _replica_of(wire.get(klass.url, "/")[1]) == "r2"
    old_pid = klass.replica("r1").pid
    t_restart = time.perf_counter() - t0
    new = local.restart("r1", klass.dir, warm_pages=())     # the warm-up is the fixture's (the same code)
    time.sleep(1.5)                                               # the others go on rerunning
    stop.set()
    for s in students:
        s.thread.join(timeout=FAILOVER_MAX_S + 30)
    assert not tally.errors and not tally.crosstalk, tally.errors + tally.crosstalk
    lost = {i: (t, r) for i, t, r in tally.disconnects}
    assert set(lost) == {i for i, r in on.items() if r == "r1"}           # r2's students kept their socket
    assert all(r == "r1" and t >= t_restart for t, r in lost.values())
    back = dict(tally.restored)
    assert all(back[i] - lost[i][0] <= FAILOVER_MAX_S for i in lost), (lost, back)   # view back, checked
    assert new.pid != old_pid and replicas.alive(new.pid, new.port)
    seen = balancer.servers(klass.sock)
    assert seen["r1"]["status"] == "UP" and seen["r2"]["status"] == "UP"
    assert _replica_of(wire.get(klass.url, "/")[1]) == "r1"     # back in: leastconn sends a newcomer to it
