"""Missing, truncated or mismatched weight files give a readable message that names the file and the
command that rebuilds it; the pages do not raise, and work again once the files are back."""
import json
import shutil

import pytest
import streamlit as st
from safetensors.torch import load_file, save_file

from harness.hostile_inputs import WEIGHT_DAMAGE
from model import checkpoints
from tests.app.conftest import ROOT, open_link, open_page, plotly_chart
from tests.app.test_hostile_inputs import as_read

VICTIM = "coref_encoder"
PAGES = ["explorer.py", "coreference.py"]


def _damage(assets, how: str, victim: str = VICTIM):
    w, c = assets / f"{victim}.safetensors", assets / f"{victim}.json"
    meta = json.loads(c.read_text())
    if how == "missing_weights":
        w.unlink()
    elif how == "missing_config":
        c.unlink()
    elif how == "truncated_weights":
        w.write_bytes(w.read_bytes()[: w.stat().st_size // 3])
    elif how == "mismatched_config":
        meta["config"]["d_ff"] = meta["config"]["d_ff"] * 2
        c.write_text(json.dumps(meta))
    elif how == "garbage_json":
        c.write_text("{not json")
    elif how == "nested_json":                             # valid JSON that Python's parser cannot recurse into
        c.write_text(json.dumps(meta)[:-1] + ', "notes": ' + "[" * 100_000 + "]" * 100_000 + "}")
    elif how in ("huge_d_model", "zero_heads"):
        meta["config"].update({"d_model": 8192} if how == "huge_d_model" else {"n_heads": 0})
        c.write_text(json.dumps(meta))
    elif how == "wrong_shape_tensor":
        state = load_file(str(w))
        key = max(state, key=lambda k: state[k].numel())
        state[key] = state[key][..., :-1].contiguous()     # one column short
        save_file(state, str(w))


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
    """Every error and warning, main area and sidebar, as a person reads them."""
    return " ".join(as_read(e.value) for e in list(at.error) + list(at.sidebar.error) + list(at.warning))


def _names_the_rebuild(at, victim: str):
    assert not at.exception, [e.message for e in at.exception]
    text = _messages(at)
    assert f"{victim}." in text and f"python -m model.train {victim}" in text, text


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


@pytest.mark.parametrize("how", ["nested_json", "wrong_shape_tensor"])
def test_a_broken_image_model_is_named_and_the_others_still_run(damaged_assets, how):
    _damage(damaged_assets, how, "vit_scenes")
    at = open_page("images.py", timeout=120)
    assert not at.exception and not at.main.error, [e.value for e in at.main.error]   # vit_digits, the first
    if how == "nested_json":                      # a config that cannot be read is listed in the sidebar at once
        assert "python -m model.train vit_scenes" in " ".join(e.value for e in at.sidebar.error)
    at.radio(key="img_model").set_value("vit_scenes").run()
    _names_the_rebuild(at, "vit_scenes")
    at.radio(key="img_model").set_value("swin_scenes").run()                     # its comparison needs vit_scenes
    _names_the_rebuild(at, "vit_scenes")
    assert at.get("plotly_chart"), "the Swin model's own views are drawn before the comparison"
    at.radio(key="img_model").set_value("vit_digits").run()
    assert not at.exception and not at.main.error


@pytest.mark.parametrize("tab", ["Fill-in (encoder)", "Objectives side by side"])
@pytest.mark.parametrize("how", ["zero_heads", "truncated_weights"])
def test_a_broken_encoder_leaves_the_decoder_running_on_the_generation_page(damaged_assets, how, tab):
    _damage(damaged_assets, how, "general_encoder")
    at = open_link("generation.py", gen_tab=tab)
    _names_the_rebuild(at, "general_encoder")
    if tab.startswith("Objectives"):
        assert plotly_chart(at, "obj_losses")["data"], "the decoder's loss terms are drawn"


def test_a_broken_translator_is_named_on_its_page(damaged_assets):
    _damage(damaged_assets, "huge_d_model", "translator")
    at = open_page("translation.py", timeout=120)
    _names_the_rebuild(at, "translator")
    assert "config.d_model is 8192" in _messages(at)
