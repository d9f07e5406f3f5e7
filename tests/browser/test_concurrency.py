"""Four sessions at once against one server, each on its own page with a text box and its own text: no
exceptions, no console errors, no state leaking between sessions, and every model loaded once. The benchmark
(`python -m bench --only gates`) drives 20."""
from harness.sessions import drive_sessions, model_loads
from tests.browser.conftest import shot


def test_four_sessions_at_once(browser, server_url, server_log):
    r = drive_sessions(browser, server_url, 4)
    shot(r["first_page"], "concurrency_session0")
    r["first_ctx"].close()
    assert not r["problems"], "\n".join(r["problems"])
    loads = model_loads(server_log)
    assert loads and max(loads.values()) == 1, loads
