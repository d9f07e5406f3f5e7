"""AppTest helpers: every page test starts from app.py (so the sidebar runs) and switches page; charts
are read back from the Plotly specs the page sent."""
import base64
import contextlib
import json
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from harness.app_test import open_page, switch_page

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def only_text_model(folder: Path, name: str, text: str, **config):
    """A random text model (tests.conftest.save_random_text_model) saved in `folder`, which stands for assets/
    while the block runs, so the pages find it as the only text model; the explorer's cached runs are cleared
    before and after (they are process-wide). Yields (model, tokenizer)."""
    from app_pages import _runs
    from model import checkpoints
    from tests.conftest import save_random_text_model
    model, tok = save_random_text_model(folder, name, text, **config)
    with mock.patch.object(checkpoints, "ASSETS", folder):
        _runs.explorer_run.clear()
        _runs.explorer_word_weights.clear()
        try:
            yield model, tok
        finally:
            _runs.explorer_run.clear()
            _runs.explorer_word_weights.clear()


def open_tab(page: str, key: str, label: str, timeout: float = 120) -> AppTest:
    """AppTest of app.py on the page `page` with its lazy tab `label` open (the tabs' state key `key`), run
    without an exception."""
    at = open_page(page, timeout=timeout)
    at.session_state[key] = label
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.fixture
def app_page():
    return open_page


def plotly_chart(at, key: str) -> dict:
    """The Plotly spec (data + layout) of the chart whose element id contains `key`."""
    for el in at.get("plotly_chart"):
        if el.proto.id and key in el.proto.id:
            return json.loads(el.proto.spec)
    raise AssertionError(f"no plotly chart {key!r} on the page")


def plotly_array(obj) -> np.ndarray:
    """Plotly 7 packs numpy arrays as {"dtype", "bdata" (base64), "shape"}; plain lists pass through."""
    if isinstance(obj, dict):
        arr = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=obj["dtype"])
        return arr.reshape([int(s) for s in str(obj["shape"]).split(",")]) if "shape" in obj else arr
    return np.asarray(obj, dtype=np.float64)


def trace_z(trace: dict) -> np.ndarray:
    """A heatmap trace's z as a float array."""
    return plotly_array(trace["z"]).astype(np.float64)


def open_link(page: str, **params):
    """A fresh session of the whole app opened on the page `page` with <params>, as a copied link opens in a new
    browser."""
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update(params)
    switch_page(at, page)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def infos(at) -> list[str]:
    """Every st.info on the page and in the sidebar."""
    return [i.value for i in at.info] + [i.value for i in at.sidebar.info]
