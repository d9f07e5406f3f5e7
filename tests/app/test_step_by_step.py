"""The step-by-step page: the lecture's numbers, the √d_k controls, and the live-model tabs (run on a
tiny random model saved to a temporary assets folder, and on whatever is shipped)."""
import json
from unittest import mock

import numpy as np
import pytest
import torch

from model import checkpoints, steps
from model.config import ModelConfig
from model.tokenizer import WordTokenizer
from model.transformer import Transformer
from tests.app.conftest import open_page

PAGE = "step_by_step.py"
TINY = "steps_tiny_test"          # a name no real checkpoint uses, so the process-wide caches cannot mix them up
TEXT = "The restaurant refused to serve me a ham sandwich because it was too salty."


def texts(at) -> str:
    return " ".join(e.value for kind in ("markdown", "success", "caption", "info") for e in getattr(at, kind))


def in_folder(fn, folder):
    """fn(name?, assets?, **kw) with `assets` forced to folder (load() passes it on positionally)."""
    def call(*args, **kw):
        kw.pop("assets", None)
        return fn(*args[:1], assets=folder, **kw)
    return call


@pytest.fixture(scope="module")
def tiny_assets(tmp_path_factory):
    """A 2-layer, 4-head random encoder saved as a checkpoint; checkpoints.* read only that folder."""
    folder = tmp_path_factory.mktemp("assets")
    tok = WordTokenizer.build([TEXT])
    torch.manual_seed(3)
    cfg = ModelConfig(vocab_size=len(tok), d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=64)
    model = Transformer(cfg).eval()
    checkpoints.save(TINY, model, {"arch": "model.transformer:Transformer", "config": cfg.to_dict(),
                                   "tokenizer": tok.to_dict(), "modality": "text", "recipe": {}, "metrics": {}},
                     assets=folder)
    patches = [mock.patch.object(checkpoints, fn, in_folder(getattr(checkpoints, fn), folder))
               for fn in ("shipped", "read_meta", "load")]
    for p in patches:
        p.start()
    yield model, tok
    for p in patches:
        p.stop()


def test_lecture_example_and_exercise_numbers_are_on_the_page():
    at = open_page(PAGE)
    assert not at.exception, [e.message for e in at.exception]
    shown = texts(at)
    assert "[0.0402, 0.9598]" in shown and "[-1.6272, 0.3799, 1.1811]" in shown
    assert "**0.7311** / **0.2689**" in shown and "[0.7311, 0.2689]" in shown and "6.1304" in shown


def test_lecture_heatmap_cells_round_to_four_decimals_and_hover_is_exact():
    at = open_page(PAGE)
    figs = [json.loads(e.proto.spec) for e in at.get("plotly_chart")]
    weights = next(f for f in figs if f["layout"]["title"]["text"].startswith("softmax(QKᵀ/√3)"))
    trace = weights["data"][0]
    assert trace["text"][0] == ["0.0402", "0.9598"]
    assert float(trace["customdata"][0][0]) == pytest.approx(0.04018, abs=1e-5)
    assert len(trace["customdata"][0][0]) > 10             # the exact repr, not the rounded text


def test_no_scaling_toggle_saturates_softmax_at_large_d_k():
    at = open_page(PAGE)
    at.select_slider(key="steps_dk").set_value(1024).run()
    scaled = float(at.metric[0].value)
    at.toggle(key="steps_no_scaling").set_value(True).run()
    assert not at.exception
    unscaled = float(at.metric[0].value)
    assert unscaled > 0.95 > scaled
    assert float(at.metric[1].value) < 0.1                  # the gradient has all but vanished


def test_live_tabs_match_the_model_head_and_follow_the_widgets(tiny_assets):
    model, tok = tiny_assets
    at = open_page(PAGE)
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="steps_token").value == TEXT.lower().split().index("it") + 1   # "it" after [CLS]
    at.selectbox(key="steps_layer").select(1).run()
    at.selectbox(key="steps_head").select(2).run()
    assert not at.exception, [e.message for e in at.exception]
    ids, tokens, _ = steps.encode_text(model, tok, TEXT)
    expected = steps.head_steps(model, steps.layer_inputs(model, ids)[1], 1, 2, None, tokens)
    figs = [json.loads(e.proto.spec) for e in at.get("plotly_chart")]
    z = next(f for f in figs if f["layout"]["title"]["text"].startswith("Z = weights·V"))["data"][0]
    shown = np.array([[float(v) for v in row] for row in z["customdata"]])
    np.testing.assert_allclose(shown, expected.Z, atol=1e-12)
    diffs = [float(v) for df in at.dataframe if "max |difference| to the row form" in df.value
             for v in df.value["max |difference| to the row form"]]
    assert len(diffs) == 8 and max(diffs) <= 1e-5            # one head tab + causal tab, 4 checks each
    shown_text = texts(at)
    assert "of them exactly 0.0" in [m.label for m in at.metric]
    above = [m.value for m in at.metric if m.label in ("weights above the diagonal", "of them exactly 0.0")]
    assert above[0] == above[1] == str(len(tokens) * (len(tokens) - 1) // 2)
    assert "post-LN" in shown_text and "Largest |difference| to the model's own layer output" in shown_text


def test_bad_text_is_bounded_and_unknown_words_flagged(tiny_assets):
    at = open_page(PAGE)
    at.text_input(key="steps_text").input("zebra " * 60).run()
    assert not at.exception, [e.message for e in at.exception]
    notes = " ".join(i.value for i in at.info)
    assert "follows the first 32" in notes and "zebra" in notes
    at.text_input(key="steps_text").input("   ").run()
    assert any("empty" in w.value for w in at.warning)


def test_page_says_what_to_do_when_no_model_is_shipped():
    with mock.patch.object(checkpoints, "shipped", lambda *a, **k: []):
        at = open_page(PAGE)
    assert not at.exception
    assert any("No trained text model is shipped" in i.value for i in at.info)
    assert any("[0.0402, 0.9598]" in s.value for s in at.success)      # the lecture still works
