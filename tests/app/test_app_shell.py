"""The app starts on the home page and every page renders without an exception."""
import pytest

from app_pages import _pages
from tests.app.conftest import open_page


def test_home_lists_every_other_page():
    at = open_page()
    assert not at.exception
    assert at.title[0].value == "Attention Lab"
    captions = " ".join(c.value for c in at.caption)
    for file, title, _, blurb in _pages.available():
        if file != "home.py":
            assert blurb in captions


@pytest.mark.parametrize("file", [p[0] for p in _pages.available() if p[0] != "home.py"])
def test_every_page_renders_without_exception(file):
    at = open_page(file, timeout=180)
    assert not at.exception, [e.message for e in at.exception]


def test_sidebar_offers_device_choice_and_absent_device_falls_back(monkeypatch):
    import torch
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    at = open_page()
    at.sidebar.selectbox(key="device").select("cuda").run()
    assert not at.exception
    assert any("not available" in w.value for w in at.sidebar.warning)
    assert any("running on **cpu**" in c.value for c in at.sidebar.caption)


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
