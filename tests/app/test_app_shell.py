"""The app starts on the home page and every page renders without an exception."""
import pytest

from app_pages import _pages
from tests.app.conftest import open_page, switch_page


def test_home_lists_every_other_page():
    at = open_page()
    assert not at.exception
    assert at.title[0].value == "Attention Lab"
    captions = " ".join(c.value for c in at.caption)
    for name, title, _, blurb in _pages.PAGES:
        if name != _pages.HOME:
            assert blurb in captions


# the pages whose content runs the sidebar's text model (read in each page's code)
RUN_THE_TEXT_MODEL = {"explorer", "tokenization", "step_by_step", "positional", "masks"}


@pytest.mark.parametrize("name", [p.name for p in _pages.PAGES if p.name != _pages.HOME])
def test_every_page_renders_and_offers_the_text_model_only_where_it_runs(name):
    at = open_page(name, timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    assert at.title[0].value != "Attention Lab"                   # the page asked for ran, not home
    assert ("text_model" in [s.key for s in at.sidebar.selectbox]) == (name in RUN_THE_TEXT_MODEL)


def test_the_text_model_picked_survives_a_page_without_the_selector():
    at = open_page("explorer.py", timeout=180)
    other = [o for o in at.sidebar.selectbox(key="text_model").options if o != at.session_state["text_model"]][0]
    at.sidebar.selectbox(key="text_model").select(other).run()
    switch_page(at, "coreference").run()
    assert "text_model" not in [s.key for s in at.sidebar.selectbox]
    switch_page(at, "explorer").run()
    assert not at.exception
    assert at.sidebar.selectbox(key="text_model").value == other and at.query_params["text_model"] == other


def test_sidebar_offers_device_choice_and_absent_device_falls_back(monkeypatch):
    import torch
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    at = open_page()
    at.sidebar.selectbox(key="device").select("cuda").run()
    assert not at.exception
    assert any("not available" in w.value for w in at.sidebar.warning)
    assert any("running on **cpu**" in c.value for c in at.sidebar.caption)


def test_an_absent_device_is_warned_about_once_per_page(monkeypatch):
    """The generation page asks for the device in every tab's run; the notice used to follow each call."""
    import torch
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    at = open_page()
    at.sidebar.selectbox(key="device").select("cuda").run()
    switch_page(at, "generation").run()
    assert not at.exception
    assert [w.value for w in at.warning if "not available" in w.value] == [
        "CUDA is not available on this machine; running on CPU."]


def test_sidebar_offers_copy_link_and_binds_model_and_device_to_the_url():
    """The sidebar runs on every page, so every page has "Copy link"; a link opens on its model and device."""
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import ROOT
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["device"] = "cpu"
    at.run()
    assert not at.exception
    (frame,) = at.sidebar.get("iframe")
    assert frame.proto.alt == "Copy this page's link" and "window.parent.location.href" in frame.proto.srcdoc
    assert "navigator.clipboard.writeText" in frame.proto.srcdoc
    assert at.sidebar.selectbox(key="device").value == "cpu" and at.query_params["device"] == "cpu"
