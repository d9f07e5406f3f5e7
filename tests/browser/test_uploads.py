"""Uploads only where the server asked for them (runtime/uploads.py), on the real server and through the real
balancer (serve/balancer.py, HAProxy on loopback in front of it): a PUT to a file id the server never issued is
refused before its body is read (Streamlit stored it: 100 of them grew a server by a GB); a session's uploads to
ids it was issued are bounded; and the balancer's upload rules hold for the path's percent-encoded variants
(`/_stcore/upload%5Ffile/…` reached the app past them)."""
import http.client
import urllib.parse
import uuid

import pytest

from runtime import uploads
from serve import limits, wire
from tests.browser.haproxy import class_balancer

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
    """HAProxy on loopback with the class's configuration in front of the test server; at most 5 uploads per client
    in the window."""
    with class_balancer(server_url, tmp_path, uploads_per_window=5) as url:
        yield url


@pytest.mark.parametrize("route", ["/_stcore/upload%5Ffile", "/_stcore/upload%5ffile", "/%5Fstcore/upload_file",
                                   "/_stcore%2Fupload_file"])
def test_the_balancers_upload_rules_hold_for_an_encoded_path(balanced, route):
    path = f"{route}/not-a-session/not-a-file"
    status, body = _headers_only(balanced, path, limits.upload_bytes_max() + 1)
    assert status == 413 and body.startswith(b"upload refused by the class balancer: larger than"), (status, body)
    answers = [wire.get(balanced, path, method="PUT", body=b"tiny")[0] for _ in range(6)]
    assert answers[-1] == 429 and all(a != 429 for a in answers[:5]), answers


def _framing(name: str = "upload.png") -> int:
    """Bytes a multipart body adds to a file (wire.upload's framing, as a browser's uploader frames one file)."""
    return (len(f"--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n".encode())
            + len(b"Content-Type: application/octet-stream\r\n\r\n") + len(b"\r\n--x--\r\n"))


def test_the_largest_file_the_app_takes_passes_the_balancer_and_one_byte_more_is_refused_by_both(server_url,
                                                                                                 balanced):
    largest = limits.upload_bytes_max() - _framing()
    for url, refusal in ((server_url, b"File too large"), (balanced, b"upload refused by the class balancer")):
        cookie = _cookie(url)
        with wire.session(url, cookie=cookie) as s:
            s.run("")
            first, second = s.upload_urls(2)
            assert wire.upload(url, first, b"\0" * largest, cookie)[0] == 204, url
            status, body = wire.upload(url, second, b"\0" * (largest + 1), cookie)
            assert status == 413 and refusal in body, (url, status, body[:200])
