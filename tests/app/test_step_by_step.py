"""The step-by-step page: the lecture's numbers, the √d_k controls, and the live-model tabs (run on a
tiny random model saved to a temporary assets folder, and on whatever is shipped)."""
import json
import re
from unittest import mock

import numpy as np
import pytest

from model import checkpoints
from model.analysis import steps
from model.tasks.attention_run import run_text
from tests.app.conftest import open_link, open_page, switch_page, trace_z
from tests.conftest import save_random_text_model

PAGE = "step_by_step.py"
TINY = "steps_tiny_test"          # a name no real checkpoint uses, so the process-wide caches cannot mix them up
TEXT = "The restaurant refused to serve me a ham sandwich because it was too salty."


def texts(at) -> str:
    return " ".join(e.value for kind in ("markdown", "success", "caption", "info") for e in getattr(at, kind))


def open_tab(at, label: str):
    """The tabs are lazy (on_change="rerun"): pick one through its key and rerun."""
    at.session_state["steps_tab"] = label
    return at.run()


def charts(at) -> list[dict]:
    return [json.loads(e.proto.spec) for e in at.get("plotly_chart")]


def chart(at, title_start: str) -> dict:
    return next(f for f in charts(at) if f["layout"]["title"]["text"].startswith(title_start))


@pytest.fixture(scope="module")
def tiny_assets(tmp_path_factory):
    """A 2-layer, 4-head random encoder saved as a checkpoint; checkpoints.* read only that folder."""
    folder = tmp_path_factory.mktemp("assets")
    model, tok = save_random_text_model(folder, TINY, TEXT, seed=3, d_model=32, n_heads=4, n_layers=2, d_ff=64,
                                        max_len=64)
    with mock.patch.object(checkpoints, "ASSETS", folder):      # every checkpoints.* call reads ASSETS
        yield model, tok


def test_lecture_example_and_exercise_numbers_are_on_the_page():
    at = open_tab(open_page(PAGE), "The lecture's example")
    assert not at.exception, [e.message for e in at.exception]
    shown = texts(at)
    assert "[0.0402, 0.9598]" in shown and "[-1.6272, 0.3799, 1.1811]" in shown
    assert "**0.7311** / **0.2689**" in shown and "[0.7311, 0.2689]" in shown and "6.1304" in shown
    trace = chart(at, "softmax(QKᵀ/√3)")["data"][0]            # cells rounded, hover exact
    assert trace["text"][0] == ["0.0402", "0.9598"]
    assert float(trace["customdata"][0][0]) == pytest.approx(0.04018, abs=1e-5)
    assert len(trace["customdata"][0][0]) > 10
    assert chart(at, "Z = weights·V")["data"][0]["text"][0] == ["-1.6272", "0.3799", "1.1811"]


def test_no_scaling_toggle_saturates_softmax_at_large_d_k():
    at = open_tab(open_link(PAGE, predict="false"), "Why √d_k")       # shown at once, no prediction first
    at.select_slider(key="steps_dk").set_value(1024).run()
    scaled = float(at.metric[0].value)
    at.toggle(key="steps_no_scaling").set_value(True).run()
    assert not at.exception
    unscaled = float(at.metric[0].value)
    assert unscaled > 0.95 > scaled
    assert float(at.metric[1].value) < 0.1                  # the gradient has all but vanished


def diffs_shown(at) -> list[float]:
    return [float(v) for df in at.dataframe if "max |difference| to the row form" in df.value
            for v in df.value["max |difference| to the row form"]]


def largest_difference(at, prefix: str) -> float:
    text = next(c.value for c in at.caption if c.value.startswith(prefix))
    return float(text.rsplit(":", 1)[1])


def test_live_tabs_match_the_model_head_and_follow_the_widgets(tiny_assets):
    model, tok = tiny_assets
    at = open_page(PAGE)
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="steps_token").value == TEXT.lower().split().index("it") + 1   # "it" after [CLS]
    at.selectbox(key="steps_layer").select(1).run()
    at.selectbox(key="steps_head").select(2).run()
    assert not at.exception, [e.message for e in at.exception]
    ids, tokens, _ = steps.encode_text(model, tok, TEXT, "cls_sep")
    expected = steps.head_steps(model, steps.layer_inputs(model, ids)[1], 1, 2, None, tokens)
    z = chart(at, "Z = weights·V")["data"][0]
    np.testing.assert_allclose(np.array(z["customdata"], dtype=float), expected.Z, atol=1e-12)
    w_q = chart(at, "W_Q, L1 H2")["data"][0]
    np.testing.assert_allclose(np.array(w_q["customdata"], dtype=float), expected.W_Q, atol=1e-12)
    diffs = diffs_shown(at)
    assert len(diffs) == 4 and max(diffs) <= 1e-5            # column form, loop, model path (Z, weights)


def test_multi_head_layer_and_causal_tabs_agree_with_the_model(tiny_assets):
    model, tok = tiny_assets
    T = len(steps.encode_text(model, tok, TEXT, "cls_sep")[1])
    at = open_tab(open_page(PAGE), "Multi-head")
    assert not at.exception, [e.message for e in at.exception]
    assert largest_difference(at, "Largest |difference| to the model's own output") <= 1e-5
    assert chart(at, "Concat(Z_1 … Z_4)")["layout"]["shapes"]                # head dividers drawn
    first = charts(at)[0]                      # each head's map first, side by side, before the matrices mixing them
    layer = int(re.search(r"in L(\d+), side by side", first["layout"]["title"]["text"])[1])
    captured = run_text(model, tok, TEXT, "cls_sep").weights[layer]           # (H, T, T): the model's forward pass
    assert [a["text"] for a in first["layout"]["annotations"]] == [f"L{layer} H{h}" for h in range(4)]
    assert np.allclose([trace_z(t) for t in first["data"]], captured, atol=1e-6)
    at = open_tab(at, "The layer")
    assert not at.exception, [e.message for e in at.exception]
    assert largest_difference(at, "Largest |difference| to the model's own layer output") <= 1e-5
    steps_listed = at.dataframe[0].value["step"].tolist()
    assert steps_listed[0] == "x" and steps_listed[-1] == "y = LayerNorm₂"
    at = open_tab(at, "Causal mask")
    assert not at.exception, [e.message for e in at.exception]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["weights above the diagonal"] == metrics["of them exactly 0.0"] == str(T * (T - 1) // 2)
    assert float(metrics["largest |row sum − 1|"]) < 1e-12
    assert max(diffs_shown(at)) <= 1e-5


def test_bad_text_is_bounded_and_unknown_words_flagged(tiny_assets):
    at = open_page(PAGE)
    at.text_input(key="steps_text").input("zebra " * 60).run()
    assert not at.exception, [e.message for e in at.exception]
    notes = " ".join(i.value for i in at.info)
    assert "follows the first 32" in notes and "zebra" in notes
    at.text_input(key="steps_text").input("it costs $ 5 and $ 6 * _ <b>").run()
    assert not at.exception, [e.message for e in at.exception]
    notes = " ".join(i.value for i in at.info)                # typed $ would start LaTeX, * and _ emphasis
    assert all(f"\\{c}," in notes for c in "$*<_")
    at.text_input(key="steps_text").input("   ").run()
    assert any("empty" in w.value for w in at.warning)


def test_page_says_what_to_do_when_no_model_is_shipped():
    with mock.patch.object(checkpoints, "shipped", lambda *a, **k: []):
        at = open_page(PAGE)
        assert not at.exception
        assert any("No trained text model is shipped" in i.value for i in at.info)
        assert any("needs a shipped text model" in i.value for i in at.info)
        at = open_tab(at, "The lecture's example")
    assert any("[0.0402, 0.9598]" in s.value for s in at.success)      # the lecture still works


def test_a_stale_label_handed_back_by_the_browser_is_validated_before_the_widgets(tiny_assets):
    """After the text or the model changes, the browser can hand a selectbox with a format_func its OLD label
    (a str); comparing it with an int raised TypeError. A label of a current option maps back to it, an unknown
    one falls back to the default."""
    at = open_page()                                     # the home page: the live widgets are not in the tree
    at.session_state["steps_text"] = "the ham sandwich"
    at.session_state["steps_layer"] = "L1"              # still an option's label: kept, as its index
    at.session_state["steps_head"] = "H9"                # no such head in a 4-head model
    at.session_state["steps_token"] = "14 · salty"       # a token of the old text, gone from the new one
    switch_page(at, PAGE).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="steps_layer").value == 1
    assert at.selectbox(key="steps_head").value == 0
    assert at.selectbox(key="steps_token").value == 1   # no "it" in the new text: the first word
    assert at.selectbox(key="steps_token").format_func(1) == "the"      # picked by word (the URL holds it)


def test_causal_tab_writes_every_cell_and_small_differences_in_plain_decimals(tiny_assets):
    """The (T, T) matrices of a sentence show a number in every allowed cell and −∞ in every masked one; a
    difference of 1e-7 reads 0.0000001, with the exact float beside it."""
    model, tok = tiny_assets
    T = len(steps.encode_text(model, tok, TEXT, "cls_sep")[1])
    assert 8 < T <= 24
    at = open_tab(open_page(PAGE), "Causal mask")
    assert not at.exception, [e.message for e in at.exception]
    values, masked = chart(at, "masked QKᵀ/√d_k")["data"]
    above = np.triu(np.ones((T, T), bool), 1)
    assert (np.array(masked["text"])[above] == "−∞").all()
    assert (np.array(values["text"])[~above] != "").all()
    table = next(df.value for df in at.dataframe if "max |difference| to the row form" in df.value)
    for shown, exact in zip(table["max |difference| to the row form"], table["exact"]):
        assert "e" not in shown and float(shown) == pytest.approx(float(exact), rel=0.05, abs=1e-300)
    assert "e" not in {m.label: m.value for m in at.metric}["largest |row sum − 1|"]
