"""Missing, truncated or mismatched weight files give a readable message that names the file and the
command that rebuilds it; the pages do not raise, and work again once the files are back."""
import json
import shutil

import pytest
import streamlit as st

from model import checkpoints
from tests.app.conftest import ROOT, open_page
from tests.hostile_inputs import WEIGHT_DAMAGE

VICTIM = "coref_encoder"
PAGES = ["explorer.py", "coreference.py"]


def _damage(assets, how: str):
    w, c = assets / f"{VICTIM}.safetensors", assets / f"{VICTIM}.json"
    if how == "missing_weights":
        w.unlink()
    elif how == "missing_config":
        c.unlink()
    elif how == "truncated_weights":
        w.write_bytes(w.read_bytes()[: w.stat().st_size // 3])
    elif how == "mismatched_config":
        meta = json.loads(c.read_text())
        meta["config"]["d_ff"] = meta["config"]["d_ff"] * 2
        c.write_text(json.dumps(meta))
    elif how == "garbage_json":
        c.write_text("{not json")


@pytest.fixture
def damaged_assets(tmp_path, monkeypatch):
    if not (checkpoints.ASSETS / f"{VICTIM}.safetensors").is_file():
        pytest.fail(f"assets/{VICTIM}.safetensors is not shipped")
    copy = tmp_path / "assets"
    shutil.copytree(checkpoints.ASSETS, copy)
    monkeypatch.setattr(checkpoints, "ASSETS", copy)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield copy
    st.cache_resource.clear()
    st.cache_data.clear()


def _messages(at) -> str:
    return " ".join(e.value for e in list(at.error) + list(at.sidebar.error) + list(at.warning))


@pytest.mark.parametrize("how", WEIGHT_DAMAGE)
@pytest.mark.parametrize("page", PAGES)
def test_damaged_weights_give_a_clear_message(damaged_assets, how, page):
    _damage(damaged_assets, how)
    at = open_page(page, timeout=120)
    assert not at.exception, [e.message for e in at.exception]
    text = _messages(at)
    assert f"python -m model.train {VICTIM}" in text, text
    assert VICTIM in text


def test_pages_work_again_when_files_are_restored(damaged_assets):
    _damage(damaged_assets, "truncated_weights")
    at = open_page("coreference.py", timeout=120)
    assert not at.exception
    shutil.copy(ROOT / "assets" / f"{VICTIM}.safetensors", damaged_assets)
    st.cache_resource.clear()
    at.run()
    assert not at.exception
    assert "python -m model.train" not in _messages(at)
