"""What any client can send or fetch on the shared server, over the real websocket and HTTP: a "clear cache"
message leaves every cache in place (runtime/server_guards.py), /_stcore/metrics shows nothing of other users, and
an uncaught error reaches the browser as Streamlit's generic message, without type, traceback or file path
(.streamlit/config.toml, client.showErrorDetails = "none")."""
import urllib.request

from streamlit.proto.openmetrics_data_model_pb2 import MetricSet

from harness.server import streamlit_server
from harness.sessions import model_loads
from serve.wire import elements, session


def test_a_clients_clear_cache_message_leaves_the_shared_caches_in_place(server_url, server_log):
    with session(server_url) as victim, session(server_url) as attacker:
        assert not elements(victim.run("explorer"), "exception")
        before = model_loads(server_log)
        assert any(name == "coref_encoder" for name, _ in before), before
        attacker.clear_cache()
        assert not elements(attacker.run("explorer"), "exception")
        assert not elements(victim.run("explorer"), "exception")
    assert model_loads(server_log) == before          # the explorer's model was not loaded again


def _metrics(url: str, accept: str, query: str = "") -> bytes:
    request = urllib.request.Request(f"{url}/_stcore/metrics{query}", headers={"Accept": accept})
    return urllib.request.urlopen(request, timeout=30).read()


def test_metrics_endpoint_reveals_no_sessions_or_caches(server_url):
    with session(server_url) as s:                     # a session is open and has run a page with cached runs
        s.run("explorer")
        for query in ("", "?families=session_events&families=active_sessions&families=cache_memory_bytes"):
            text = _metrics(server_url, "text/plain", query).decode()
            assert [line for line in text.splitlines() if not line.startswith("#")] == [], text
            assert "session" not in text and "cache" not in text, text
            proto = MetricSet.FromString(_metrics(server_url, "application/x-protobuf", query))
            assert len(proto.metric_families) == 0, proto


def test_an_uncaught_error_shows_a_generic_message_without_traceback_or_paths(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text('import streamlit as st\nst.write("Before the error")\n'
                      'raise RuntimeError(f"could not read {__file__}")\n')
    with streamlit_server(tmp_path / "fails.log", script=script) as url, session(url, timeout=60) as s:
        msgs = s.run()
    errors = elements(msgs, "exception")
    assert len(errors) == 1
    shown = errors[0]
    assert shown.message.startswith("This app has encountered an error."), shown.message
    assert shown.type == "" and list(shown.stack_trace) == []
    wire = b"".join(m.SerializeToString() for m in msgs if m.WhichOneof("type") == "delta")   # what the page shows
    assert str(tmp_path).encode() not in wire and b"RuntimeError" not in wire and b"Traceback" not in wire
    assert "could not read" in (tmp_path / "fails.log").read_text()   # the details stay in the server log
