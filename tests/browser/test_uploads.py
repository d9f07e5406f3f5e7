"""Uploads only where the server asked for them (runtime/uploads.py), on the real server and through the real
balancer (serve/balancer.py, HAProxy on loopback in front of it): a PUT to a file id the server never issued is
refused before its body is read (Streamlit stored it: 100 of them grew a server by a GB); a session's uploads to
ids it was issued are bounded; and the balancer's upload rules hold for the path's percent-encoded variants
(`/_stcore/upload%5Ffile/…` reached the app past them)."""
import contextlib
import http.client
import subprocess
import time
import urllib.parse
import uuid

import pytest

from harness.server import free_port
from runtime import uploads
from serve import balancer, limits, wire

MB = 1 << 20


def _cookie(url: str) -> str:
    """The XSRF cookie a browser gets with its first request (the uploader sends its token back)."""
    _, headers, _ = wire.get(url, "/_stcore/health")
    return wire.set_cookies(headers)


def _headers_only(url: str, path: str, length: int, timeout: float = 5) -> tuple[int, bytes]:
    """A PUT that announces `length` bytes and sends none: (status, body), if the server answers without it."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.putrequest("PUT", path)
        conn.putheader("Content-Length", str(length))
        conn.putheader("Content-Type", "multipart/form-data; boundary=x")
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def test_uploads_to_file_ids_the_server_never_issued_are_refused_before_the_body_is_read(server_url):
    cookie = _cookie(server_url)
    with wire.session(server_url, cookie=cookie) as s:
        s.run("")
        answers = [wire.upload(server_url, f"/_stcore/upload_file/{s.session_id}/{uuid.uuid4()}", b"\0" * MB, cookie)
                   for _ in range(20)]
        assert answers == [(404, uploads.NOT_ISSUED.encode())] * 20
        assert _headers_only(server_url, f"/_stcore/upload_file/{s.session_id}/{uuid.uuid4()}", 8 * MB)[0] == 404
        issued = s.upload_urls(1)[0]                                   # what the page's uploader asks first
        assert wire.upload(server_url, issued, b"\x89PNG picture", cookie)[0] == 204


def test_a_sessions_uploads_to_issued_ids_are_bounded(server_url):
    cookie = _cookie(server_url)
    most = uploads.SESSION_MB * MB
    each = limits.upload_bytes_max() - 4096                           # the largest file the uploader sends
    with wire.session(server_url, cookie=cookie) as s:
        s.run("")
        urls = s.upload_urls(most // each + 1)
        answers = [wire.upload(server_url, u, b"\0" * each, cookie)[0] for u in urls]
    assert answers == [204] * (most // each) + [413]


@pytest.fixture
def balanced(server_url, tmp_path):
    """HAProxy on loopback with the class's configuration, the test server as its one replica; at most 5 uploads
    per client in the window."""
    port, app_port = free_port(), int(server_url.rsplit(":", 1)[1])
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(balancer.render(port, [balancer.Replica("r1", app_port)], tmp_path / "haproxy.sock",
                                   uploads_per_window=5))
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


@pytest.mark.parametrize("route", ["/_stcore/upload%5Ffile", "/_stcore/upload%5ffile", "/%5Fstcore/upload_file",
                                   "/_stcore%2Fupload_file"])
def test_the_balancers_upload_rules_hold_for_an_encoded_path(balanced, route):
    path = f"{route}/not-a-session/not-a-file"
    status, body = _headers_only(balanced, path, limits.upload_bytes_max() + 1)
    assert status == 413 and body.startswith(b"upload refused by the class balancer: larger than"), (status, body)
    answers = [wire.get(balanced, path, method="PUT", body=b"tiny")[0] for _ in range(6)]
    assert answers[-1] == 429 and all(a != 429 for a in answers[:5]), answers
