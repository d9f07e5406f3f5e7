"""The attention explorer page (AppTest): typed text, layer/head/toggles, and the figures' data equal
the model's own weights. Runs on a tiny random encoder saved to a temporary assets folder; one test
uses the shipped default model when it is there."""
from unittest import mock

import numpy as np
import pytest

from app_pages import _resources
from model import checkpoints
from model.analysis import attention_views as analysis
from model.analysis import head_stats
from model.data import text_input
from model.tasks.attention_run import run_text
from model.tasks.word_attention import word_attention
from tests.app.conftest import only_text_model, open_page, switch_page
from tests.app.conftest import plotly_array as values
from tests.app.conftest import plotly_chart as chart

PAGE = "explorer.py"
SHIPPED = checkpoints.ASSETS
TINY = "explorer_tiny_test"         # a name no shipped model uses, so process-wide caches cannot mix them up
PARAGRAPH = ("The restaurant refused to serve me a ham sandwich because it only cooks vegetarian food. "
             "In the end, they just gave me two slices of bread.")


def zoom_matrix(at) -> np.ndarray:
    trace = chart(at, "explorer_zoom")["data"][0]
    return values(trace["z"]).reshape(len(trace["y"]), len(trace["x"]))


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """(model, tokenizer) of a 2-layer, 4-head random encoder that the page finds as the only text model."""
    with only_text_model(tmp_path_factory.mktemp("assets"), TINY, PARAGRAPH, seed=5, d_model=32, n_heads=4,
                         n_layers=2, d_ff=64, max_len=48) as model_tok:
        yield model_tok


@pytest.fixture
def page(tiny):
    at = open_page(PAGE)
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_default_paragraph_shows_token_chips_and_the_zoom_equals_the_models_weights(tiny, page):
    model, tok = tiny
    text = page.text_area(key="explorer_text").value
    assert "ham sandwich" in text and "Their ambiance" in text
    expected = run_text(model, tok, text, "cls_sep")
    chips = " ".join(m.value for m in page.markdown)
    assert "restaurant" in chips and "dashed" in chips                      # "ambiance" is not in the vocabulary
    assert np.array_equal(zoom_matrix(page), expected.weights[0, 0])


def test_changing_layer_and_head_zooms_that_head(tiny, page):
    model, tok = tiny
    page.selectbox(key="explorer_layer").select(1)
    page.selectbox(key="explorer_head").select(3).run()
    assert not page.exception
    expected = run_text(model, tok, page.text_area(key="explorer_text").value, "cls_sep")
    assert np.array_equal(zoom_matrix(page), expected.weights[1, 3])
    assert any(s.value == "L1 H3" for s in page.subheader)
    shapes = chart(page, "explorer_grid")["layout"]["shapes"]
    assert len(shapes) == 1 and shapes[0]["y0"] > 0 and shapes[0]["x0"] > shapes[0]["y0"]


def test_hiding_special_tokens_renormalises_rows_and_says_so(tiny, page):
    model, tok = tiny
    page.toggle(key="explorer_hide").set_value(True).run()
    expected = run_text(model, tok, page.text_area(key="explorer_text").value, "cls_sep")
    keep = analysis.keep_positions(expected.tokens)
    want, removed = analysis.renormalised(expected.weights[0, 0], keep)
    got = zoom_matrix(page)
    assert got.shape == (len(expected.tokens) - 2,) * 2
    assert np.allclose(got, want, atol=1e-7) and np.allclose(got.sum(-1), 1.0, atol=1e-6)
    assert "[CLS]" not in " ".join(chart(page, "explorer_zoom")["data"][0]["y"])
    assert any("renormalised" in i.value and f"{removed:.1%}" in i.value for i in page.info)


def test_log_toggle_recolours_but_keeps_the_exact_weights(tiny, page):
    before_grid = chart(page, "explorer_grid")["data"][0]["source"]
    before = zoom_matrix(page)
    page.toggle(key="explorer_log").set_value(True).run()
    assert chart(page, "explorer_grid")["data"][0]["source"] != before_grid
    assert isinstance(chart(page, "explorer_zoom")["data"][0]["colorscale"][1][0], float)
    assert np.array_equal(zoom_matrix(page), before)


def test_typed_text_is_escaped_unknown_words_flagged_and_long_text_truncated(tiny, page):
    page.text_area(key="explorer_text").input("<img src=x onerror=alert(1)> " + "the restaurant " * 40).run()
    assert not page.exception
    html_chips = next(m.value for m in page.markdown if "<span" in m.value)
    assert "<img" not in html_chips and "&lt;<sub" in html_chips and "&gt;<sub" in html_chips
    assert any("reads at most 48" in w.value for w in page.warning)
    assert len(chart(page, "explorer_zoom")["data"][0]["x"]) == 48


def test_picked_token_bars_and_statistics_match_the_weights(tiny, page):
    model, tok = tiny
    expected = run_text(model, tok, page.text_area(key="explorer_text").value, "cls_sep")
    it = expected.tokens.index("it")
    assert page.selectbox(key="explorer_token").value == it                  # the first pronoun is picked
    assert not [c for c in page.get("plotly_chart") if c.proto.id and "explorer_bars" in c.proto.id]  # lazy tab
    page.session_state["explorer_tab"] = "Attends to & statistics"
    page.run()
    bars = chart(page, "explorer_bars")["data"]
    for h, trace in enumerate(bars):
        assert values(trace["x"]).tolist() == pytest.approx(sorted(expected.weights[0, h, it], reverse=True)[:6])
    table = page.dataframe[0].value
    stats = head_stats.head_stats(expected.weights, expected.tokens)
    assert table["entropy (nats)"].to_numpy() == pytest.approx(stats["entropy"].ravel())
    page.session_state["explorer_tab"] = "Rollout"
    page.run()
    rollout = values(chart(page, "explorer_rollout")["data"][0]["z"]).reshape(len(expected.tokens), -1)
    assert np.allclose(rollout, analysis.rollout(expected.weights)[-1], atol=1e-6)


def test_empty_text_asks_for_text(tiny, page):
    page.text_area(key="explorer_text").input("   ").run()
    assert not page.exception and any("Type some text" in w.value for w in page.warning)


def test_shipped_default_model_runs_the_paragraph_when_present():
    name = _resources.DEFAULT_TEXT_MODEL
    with mock.patch.object(checkpoints, "ASSETS", SHIPPED):
        if name not in checkpoints.shipped():
            pytest.fail(f"{name} is not in assets/: train it with `python -m model.train {name}`")
        at = open_page(PAGE, timeout=120)
        model, meta = checkpoints.load(name)
    assert not at.exception, [e.message for e in at.exception]
    assert at.sidebar.selectbox(key="text_model").value == name
    expected = run_text(model, text_input.tokenizer_of(meta), at.text_area(key="explorer_text").value,
                        text_input.rule_of(meta))
    weights = expected.weights                                    # (L, H, N, N): pieces, or whole words when shown
    if any(len(w) > 1 for w in expected.words) and at.toggle(key="explorer_words").value:
        weights = word_attention(expected.weights, expected.words)
    assert np.allclose(zoom_matrix(at), weights[0, 0], atol=1e-6)


def _labelled(text: str):
    """The explorer's statistics tab on the shipped coreference encoder: (the heads labelled coreference, the
    number of heads, the captions)."""
    with mock.patch.object(checkpoints, "ASSETS", SHIPPED):
        at = open_page(PAGE, timeout=120)
        at.text_area(key="explorer_text").input(text).run()
        at.session_state["explorer_tab"] = "Attends to & statistics"
        at.run()
    assert not at.exception, [e.message for e in at.exception]
    table = at.dataframe[0].value
    return (table.loc[table["labels"].str.contains("coreference"), "head"].tolist(), len(table),
            [c.value for c in at.caption])


def test_a_one_pronoun_sentence_labels_no_head_coreference_and_says_why():
    """One pronoun is no evidence of a head's habit (the walk's sentence labelled 7 of 16 heads "coref")."""
    labelled, heads, captions = _labelled("The animal didn't cross the street because it was too tired.")
    assert heads == 16 and labelled == []
    assert any("it has 1 pronoun with an earlier word, and one text needs 3" in c for c in captions), captions


def test_a_text_with_three_pronouns_labels_fewer_than_half_of_the_heads():
    labelled, heads, captions = _labelled(
        "The trophy didn't fit into the suitcase because it was too big. The dog chased the ball until it was "
        "tired. The chefs cooked all night, so they slept late.")
    assert heads == 16 and len(labelled) < 8, labelled
    assert not any("No head is labelled coreference" in c for c in captions)


def test_head_view_draws_only_the_chosen_heads_and_downloads_are_offered(tiny, page):
    from viz.head_view import head_colour
    page.multiselect(key="explorer_heads").set_value([2]).run()
    assert not page.exception
    lines = [t for t in chart(page, "explorer_lines")["data"] if t.get("mode") == "lines"]
    assert lines and {t["line"]["color"] for t in lines} == {head_colour(2)}
    page.session_state["explorer_tab"] = "Downloads"
    page.run()
    labels = [b.proto.label for b in page.get("download_button") if b.proto.label not in ("Slide PNG (2x)", "SVG")]
    assert labels == ["Grid (PNG)", "Zoomed head (PNG)", "Zoomed head (SVG)", "All weights (CSV)",
                      "All weights (JSON)"]


def test_stale_labels_handed_back_by_the_browser_are_dropped_not_compared(tiny):
    """The browser can hand a widget with a format_func its old label (a str) once its options change; comparing
    it with an int raised TypeError. Stale picks fall back to the defaults."""
    at = open_page()                                          # the home page: the explorer's widgets are not drawn
    at.session_state["explorer_heads"] = ["H1", 2]
    at.session_state["explorer_layer"] = "1"
    switch_page(at, PAGE).run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.multiselect(key="explorer_heads").value == [0, 1, 2, 3]
    assert at.selectbox(key="explorer_layer").value == 0


def test_new_text_picks_its_own_pronoun_and_a_click_picked_token_stays_while_the_text_does(tiny, page):
    """The old index would name another word of the new text (the browser even kept its old label)."""
    page.selectbox(key="explorer_token").set_value(3).run()
    page.selectbox(key="explorer_layer").set_value(1).run()
    assert page.selectbox(key="explorer_token").value == 3           # same text: the pick is kept
    page.text_area(key="explorer_text").set_value("the chef cooked the meal because it was late .").run()
    assert not page.exception
    tokens = chart(page, "explorer_zoom")["data"][0]["y"]
    picked = page.selectbox(key="explorer_token").value
    assert "it" in tokens[picked] and picked == 7, (picked, tokens)


def test_picks_survive_an_emptied_text_box_and_a_visit_to_another_page(tiny, page):
    """An emptied text stops the page before its widgets, and another page draws none of them: Streamlit forgets
    a widget a run does not draw unless it persists (persist_state="session")."""
    page.selectbox(key="explorer_layer").set_value(1)
    page.selectbox(key="explorer_head").set_value(3)
    page.toggle(key="explorer_log").set_value(True).run()
    page.text_area(key="explorer_text").input("").run()
    assert any("Type some text" in w.value for w in page.warning)
    page.text_area(key="explorer_text").input(PARAGRAPH).run()
    switch_page(page, "home").run()
    switch_page(page, PAGE).run()
    assert not page.exception, [e.message for e in page.exception]
    assert page.selectbox(key="explorer_layer").value == 1 and page.selectbox(key="explorer_head").value == 3
    assert page.toggle(key="explorer_log").value is True
    assert any(s.value == "L1 H3" for s in page.subheader)
