"""The bounds the balancer enforces, read from the app's own so they cannot drift apart:

- an upload's body: `server.maxUploadSize` of .streamlit/config.toml (MiB), the bound Streamlit itself checks
  against Content-Length (the image page's uploader says "up to 8 MB"; model/data/images.py reads at most as many
  bytes); the balancer refuses larger bodies, and bodies of unknown length, before they reach a replica;
- uploads per client address: a few per second on average (a class behind one NAT address uploads one picture
  each), so no client can fill a replica's memory with uploads to file ids it was never issued (issue 18, item 8);
- a request's line and headers: a shared link carries up to URL_TEXT_MAX characters of each text box
  (app_pages/_url.py), percent-encoded: a 4-byte character is 12 bytes; three boxes on one page at most.
"""
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".streamlit" / "config.toml"
MiB = 1024 * 1024

URL_TEXT_MAX = 2_000          # app_pages/_url.py's URL_TEXT_MAX (checked equal by tests/unit/test_serve_config.py)
TEXT_BOXES_PER_LINK = 3       # the most bound text boxes on one page (coreference: two minimal-pair boxes and a text)
BYTES_PER_CHAR_IN_LINK = 12   # a 4-byte UTF-8 character percent-encoded
HEADERS_ALLOWANCE = 16 * 1024     # cookies, the other parameters, the browser's own headers
MAX_REWRITE = 1024            # HAProxy's room for the headers it adds (its default)
UPLOADS_PER_WINDOW = 30       # uploads one client address may start per UPLOAD_WINDOW_S
CONNECTIONS_PER_BROWSER = 12  # at once, per browser id: a websocket per tab and the 6 a browser opens per host
UPLOAD_WINDOW_S = 10


def app_config() -> dict:
    return tomllib.loads(CONFIG.read_text())


def upload_bytes_max() -> int:
    """The largest upload request body the app accepts: server.maxUploadSize MiB (Streamlit's own check of
    Content-Length in its upload route)."""
    return int(app_config()["server"]["maxUploadSize"]) * MiB


def request_head_max() -> int:
    """The longest request line + headers the balancer must pass: the longest link the app makes, and the rest."""
    return TEXT_BOXES_PER_LINK * URL_TEXT_MAX * BYTES_PER_CHAR_IN_LINK + HEADERS_ALLOWANCE


def haproxy_bufsize() -> int:
    """tune.bufsize: a request's line and headers must fit in one buffer, less the rewrite reserve; rounded up to
    4 KiB."""
    need = request_head_max() + MAX_REWRITE
    return -(-need // 4096) * 4096
