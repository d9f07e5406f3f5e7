"""The balancer's configuration: accepted by HAProxy itself (`haproxy -c`), and its limits equal to the app's
own bounds, read here independently from .streamlit/config.toml and app_pages/_url.py."""
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

from app_pages import _url
from serve import balancer, limits

ROOT = Path(__file__).resolve().parents[2]


def _cfg(tmp_path, n=3, **kw) -> str:
    reps = [balancer.Replica(f"r{i + 1}", 8631 + i) for i in range(n)]
    return balancer.render(8630, reps, tmp_path / "h.sock", **kw)


def test_haproxy_accepts_the_generated_configuration(tmp_path):
    haproxy = shutil.which("haproxy")
    assert haproxy, "haproxy is missing: apt-get install -y haproxy"
    path = tmp_path / "haproxy.cfg"
    path.write_text(_cfg(tmp_path))
    out = subprocess.run([haproxy, "-c", "-f", str(path)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    path.write_text(_cfg(tmp_path).replace("balance leastconn", "balance leastconns"))
    assert subprocess.run([haproxy, "-c", "-f", str(path)], capture_output=True).returncode != 0   # it does check


def test_every_replica_is_health_checked_and_a_browser_kept_to_one_by_its_id_not_by_a_replica_name(tmp_path):
    text = _cfg(tmp_path, n=3)
    servers = re.findall(r"^\s+server (r\d) 127\.0\.0\.1:(\d+) check$", text, re.M)
    assert servers == [("r1", "8631"), ("r2", "8632"), ("r3", "8633")]
    assert "option httpchk GET /_stcore/health" in text and "http-check expect string ok" in text
    assert "stick on var(txn.browser)" in text and "cookie " not in text.split("backend")[-1]   # no replica cookie


def test_upload_and_link_limits_are_the_apps_own(tmp_path):
    mib = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"]
    assert limits.upload_bytes_max() == mib * 1024 * 1024
    text = _cfg(tmp_path, uploads_per_window=7)
    assert f"acl too_big req.hdr_val(content-length) gt {mib * 1024 * 1024}\n" in text
    assert "acl too_many sc_http_req_rate(0) gt 7\n" in text
    assert limits.URL_TEXT_MAX == _url.URL_TEXT_MAX
    bufsize = int(re.search(r"tune\.bufsize (\d+)", text).group(1))
    rewrite = int(re.search(r"tune\.maxrewrite (\d+)", text).group(1))
    assert bufsize - rewrite >= 3 * _url.URL_TEXT_MAX * 12      # three full text boxes of 4-byte characters


def test_no_page_binds_more_text_boxes_than_a_link_is_sized_for():
    for view in (ROOT / "app_pages" / "views").glob("*.py"):
        source = view.read_text()
        boxes = len(re.findall(r"text_bind\(", source))
        if "for p in" in source and "text_bind(f" in source:     # masks: one per pattern parameter, short numbers
            continue
        assert boxes <= limits.TEXT_BOXES_PER_LINK, (view.name, boxes)
