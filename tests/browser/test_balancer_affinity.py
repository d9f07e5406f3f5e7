"""A client cannot choose its replica through the class balancer (serve/balancer.py), on HAProxy on loopback with the
class's configuration and two replicas. Before, any `attention_lab_replica=rN` cookie was honoured: 20 sessions
pinned to r1 took r1's students from 0.1 s to 3.3 s a rerun. Now the cookie is a random browser id the balancer
makes; a value it did not make (a replica's name, a made-up id) is balanced like a new browser, and one id reused
for many sessions gets at most CONNECTIONS_PER_BROWSER connections at once."""
import collections
import contextlib
import uuid

import pytest
from websockets.exceptions import InvalidStatus

from serve import balancer, limits, wire
from tests.browser.haproxy import class_balancer

SESSIONS = 20


@pytest.fixture
def balanced(server_url, tmp_path):
    with class_balancer(server_url, tmp_path, replicas=("r1", "r2")) as url:
        yield url


def test_sessions_naming_a_replica_or_a_made_up_id_are_spread_over_the_replicas(balanced):
    landed = collections.Counter()
    with contextlib.ExitStack() as stack:
        for i in range(SESSIONS):
            chosen = "attention_lab_replica=r1; " + (f"{balancer.COOKIE}=r1" if i % 2 else
                                                     f"{balancer.COOKIE}={uuid.UUID(int=7)}")
            ws = stack.enter_context(contextlib.closing(wire.open_socket(balanced, 60, chosen)))
            landed[wire.header(ws.response.headers.raw_items(), balancer.REPLICA_HEADER)] += 1
    assert set(landed) == {"r1", "r2"} and max(landed.values()) <= SESSIONS // 2 + 1, landed


def test_one_browser_id_reused_gets_a_bounded_number_of_connections(balanced):
    status, headers, _ = wire.get(balanced, "/")
    cookie = wire.set_cookies(headers)
    assert status == 200 and cookie.startswith(f"{balancer.COOKIE}=")
    opened, refused = [], 0
    with contextlib.ExitStack() as stack:
        for _ in range(SESSIONS):
            try:
                ws = stack.enter_context(contextlib.closing(wire.open_socket(balanced, 60, cookie)))
            except InvalidStatus as e:
                assert e.response.status_code == 429 and b"too many connections from one browser" in e.response.body
                refused += 1
                continue
            opened.append(wire.header(ws.response.headers.raw_items(), balancer.REPLICA_HEADER))
    assert len(opened) == limits.CONNECTIONS_PER_BROWSER and refused == SESSIONS - len(opened), (opened, refused)
    assert len(set(opened)) == 1                                   # one browser, one replica


def test_no_other_site_may_frame_the_app_unless_the_class_names_it(server_url, tmp_path):
    """Before, neither the replicas nor the balancer sent X-Frame-Options or a frame-ancestors policy."""
    with class_balancer(server_url, tmp_path / "closed") as url:
        for path in ("/", "/explorer", "/_stcore/health"):
            _, headers, _ = wire.get(url, path)
            assert wire.header(headers, "Content-Security-Policy") == "frame-ancestors 'none'", path
            assert wire.header(headers, "X-Frame-Options") == "DENY", path
    with class_balancer(server_url, tmp_path / "course", frame_ancestors=("https://course.example.org",)) as url:
        _, headers, _ = wire.get(url, "/")
        assert wire.header(headers, "Content-Security-Policy") == "frame-ancestors 'self' https://course.example.org"
        assert wire.header(headers, "X-Frame-Options") is None
