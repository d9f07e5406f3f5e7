"""Every view in the URL (AppTest): a fresh session opened on a link (query parameters) shows the same text, layer,
head, word, tab and picks on the explorer, coreference, step-by-step and tokenization pages; a stale link value (a
word not in the text, a layer or head out of range, an unknown model) opens with a notice and the default; HTML in
a link stays text; a 100,000-character text in a link is clipped with the page's usual notice and then kept out of
the link. Runs on a tiny random word-level encoder saved to a temporary assets folder (the coreference page is
pointed at it too), so the claims are about the code, not about which model is shipped."""
import json
from unittest import mock

import numpy as np
import pytest

from app_pages import _runs, _url
from app_pages._markup import md
from app_pages.views import coreference
from model import checkpoints
from model.data import course_world as corpus
from model.tasks.attention_run import run_text
from tests.app.conftest import infos, open_link
from tests.app.conftest import plotly_array as values
from tests.app.conftest import plotly_chart as chart
from tests.conftest import save_random_text_model

TINY = "url_views_tiny_test"        # a name no shipped model uses, so process-wide caches cannot mix them up
VOCABULARY = (corpus.PARAGRAPH + " the chef cooked the meal because it was late . "
              + " ".join(text for _, text in corpus.CLASSICS))
TEXT = "the chef cooked the meal because it was late ."
CORE_HEAD = [1, 2]                  # the tiny model's "coreference head", as a trained one's meta names it


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """(model, tokenizer) of a 2-layer, 4-head random encoder: the only text model, and the coreference model."""
    folder = tmp_path_factory.mktemp("assets")
    model, tok = save_random_text_model(folder, TINY, VOCABULARY, seed=7, d_model=32, n_heads=4, n_layers=2,
                                        d_ff=64, max_len=64)
    meta_path = folder / f"{TINY}.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "coref_head": CORE_HEAD}))
    caches = (_runs.explorer_run, _runs.coref_run, _runs.step_layer_inputs)
    with mock.patch.object(checkpoints, "ASSETS", folder), mock.patch.object(coreference, "COREF_MODEL", TINY):
        for cache in caches:
            cache.clear()
        yield model, tok
    for cache in caches:
        cache.clear()


def zoom(at) -> np.ndarray:
    trace = chart(at, "explorer_zoom")["data"][0]
    return values(trace["z"]).reshape(len(trace["y"]), len(trace["x"]))


# ---- the explorer ------------------------------------------------------------------------------------------------
def test_a_link_opens_the_explorer_on_its_text_layer_head_word_and_tab(tiny):
    model, tok = tiny
    at = open_link("explorer.py", explorer_text=TEXT, explorer_layer="L1", explorer_head="H3",
                   explorer_token="the (2)", explorer_tab="Rollout", explorer_log="true")
    expected = run_text(model, tok, TEXT, "cls_sep")
    second_the = [i for i, t in enumerate(expected.tokens) if t == "the"][1]
    assert at.text_area(key="explorer_text").value == TEXT
    assert at.selectbox(key="explorer_layer").value == 1 and at.selectbox(key="explorer_head").value == 3
    assert at.selectbox(key="explorer_token").value == second_the
    assert at.selectbox(key="explorer_token").format_func(second_the) == "the (2)"
    assert at.toggle(key="explorer_log").value is True
    assert any(s.value == "L1 H3" for s in at.subheader)
    np.testing.assert_array_equal(zoom(at), expected.weights[1, 3])
    chart(at, "explorer_rollout")                                       # the Rollout tab is the open one
    assert not infos(at)                                                # nothing stale: no notice
    assert at.query_params["explorer_token"] == "the (2)" and at.query_params["explorer_layer"] == "L1"


def test_a_link_picks_the_head_view_heads_and_the_statistic(tiny):
    at = open_link("explorer.py", explorer_heads=["H1", "H3"], explorer_min_w="0.1", explorer_focus="false")
    assert at.multiselect(key="explorer_heads").value == [1, 3]
    assert at.number_input(key="explorer_min_w").value == pytest.approx(0.1)
    assert at.toggle(key="explorer_focus").value is False
    at = open_link("explorer.py", explorer_tab="Attends to & statistics", explorer_stat="mean distance (tokens)")
    assert at.selectbox(key="explorer_stat").value == "mean_distance"
    chart(at, "explorer_bars")


def test_stale_word_layer_head_and_model_open_with_notices_and_the_defaults(tiny):
    model, tok = tiny
    at = open_link("explorer.py", explorer_layer="L9", explorer_head="H7", explorer_token="zebra",
                   text_model="retired_model")
    shown = infos(at)
    assert "The link asked for layer “L9”, which is not on this page now; showing “L0”." in shown
    assert "The link asked for head “H7”, which is not on this page now; showing “H0”." in shown
    assert "The link asked for the word “zebra”, which is not on this page now; showing “it”." in shown
    assert f"The link asked for the model “retired\\_model”, which is not on this page now; showing “{md(TINY)}”." \
        in shown
    assert at.sidebar.selectbox(key="text_model").value == TINY
    expected = run_text(model, tok, corpus.PARAGRAPH, "cls_sep")
    assert at.selectbox(key="explorer_layer").value == 0 and at.selectbox(key="explorer_head").value == 0
    assert at.selectbox(key="explorer_token").value == expected.tokens.index("it")     # the first pronoun
    for key in ("explorer_layer", "explorer_head", "explorer_token", "text_model"):
        assert key not in at.query_params                               # Streamlit dropped the stale values
    at.selectbox(key="explorer_layer").set_value(1).run()
    assert not infos(at)                                                # said once, when the link was opened


def test_a_new_text_that_drops_the_linked_word_gives_no_stale_notice(tiny):
    at = open_link("explorer.py", explorer_text=TEXT, explorer_token="chef")
    assert at.selectbox(key="explorer_token").format_func(at.selectbox(key="explorer_token").value) == "chef"
    at.text_area(key="explorer_text").set_value("the restaurant was busy because it was late .").run()
    assert not at.exception and not infos(at)          # a new text, not a link: its own first pronoun, quietly
    assert at.selectbox(key="explorer_token").format_func(at.selectbox(key="explorer_token").value) == "it"


def test_html_in_a_link_is_shown_as_text(tiny):
    at = open_link("explorer.py", explorer_text='<img src=x onerror="alert(1)"> it <b>was</b>',
                   explorer_token="<script>alert(1)</script>")
    chips = next(m.value for m in at.markdown if "<span" in m.value)
    assert "<img" not in chips and "<b>" not in chips and "&lt;" in chips
    (notice,) = [i for i in infos(at) if "The link asked for the word" in i]
    assert "<script>" not in notice and "\\<script\\>alert\\(1\\)\\</script\\>" in notice


@pytest.mark.parametrize("page,key,says,box", [
    ("explorer.py", "explorer_text", ("warning", "only the first 20,000 are used."), None),
    ("coreference.py", "coref_text", ("warning", "only the first 1,200 are used."), 1_200),
    ("step_by_step.py", "steps_text", ("warning", "only the first 2,000 are used."), 2_000),
    ("tokenization.py", "tok_text", ("warning", "this part of the page reads at most 2,000. Shorten it to see its "
                                              "tokens."), None),
], ids=["explorer", "coreference", "step_by_step", "tokenization"])
def test_a_100k_character_link_text_is_clipped_with_the_usual_notice_and_no_long_link(tiny, page, key, says, box):
    """A box without max_chars keeps the whole text (the page clips what it reads) and leaves the link; a box with
    max_chars gets the text cut to it (Streamlit does, the page says so), short enough to stay in the link."""
    text = ("the chef cooked the meal because it was late . " * 2_200)[:100_000]
    at = open_link(page, **{key: text})
    kind, message = says
    assert f"The text has 100,000 characters; {message}" in [e.value for e in getattr(at, kind)]
    long_note = [c.value for c in at.caption if c.value.startswith("This text has 100,000 characters, more than the "
                                                                   "2,000 a link carries: it stays out of the link")]
    assert bool(long_note) is (box is None)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    if box is None:
        assert key not in at.query_params                                 # unbound: kept out of the link
    else:
        assert len(at.query_params[key]) == box <= _url.URL_TEXT_MAX


# ---- coreference -------------------------------------------------------------------------------------------------
def test_a_link_opens_coreference_on_its_text_pronoun_and_head(tiny):
    text = "The chef cooked the meal because it was late. Then they ate it."
    at = open_link("coreference.py", coref_text=text, coref_pronoun="it (2)", coref_head="L0 H1", predict="false")
    assert at.text_area(key="coref_text").value == text
    assert at.selectbox(key="coref_example").value == coreference.OWN        # the gallery agrees with the text
    pronoun = at.selectbox(key="coref_pronoun")
    assert pronoun.format_func(pronoun.value) == "it (2)"
    assert at.selectbox(key="coref_head").value == (0, 1)
    assert any(m.value.startswith(f"Head **L0 H1** points **it** (word {pronoun.value})") for m in at.markdown)
    assert not [i for i in infos(at) if not i.startswith("No clear answer here")]   # no link notice (a random model
    #                                                                                   has no clear coreference head)


def test_a_link_naming_a_gallery_example_brings_its_text(tiny):
    at = open_link("coreference.py", coref_example="The wide street")
    assert at.text_area(key="coref_text").value == dict(corpus.CLASSICS)["The wide street"]
    at = open_link("coreference.py", coref_text=corpus.CLASSICS[3][1])
    assert at.selectbox(key="coref_example").value == corpus.CLASSICS[3][0]


def test_a_link_opens_the_minimal_pairs_tab_on_its_pair_and_sentences(tiny):
    a = "The trophy didn't fit into the suitcase because it was too heavy."
    at = open_link("coreference.py", coref_tab="Minimal pairs", coref_pair="big / small", coref_a=a)
    assert at.selectbox(key="coref_pair").value == "big / small"
    assert at.text_input(key="coref_a").value == a
    assert at.text_input(key="coref_b").value == corpus.MINIMAL_PAIRS[1][2]
    chart(at, "coref_diff")
    at.selectbox(key="coref_pair").set_value("tired / wide").run()          # another pair brings its sentences
    assert at.text_input(key="coref_a").value == corpus.MINIMAL_PAIRS[0][1]


def test_stale_pronoun_and_head_in_a_coreference_link_give_notices(tiny):
    at = open_link("coreference.py", coref_pronoun="she", coref_head="L7 H0")
    shown = infos(at)
    assert "The link asked for the word “she”, which is not on this page now; showing “it”." in shown
    assert "The link asked for head “L7 H0”, which is not on this page now; showing “L1 H2”." in shown
    assert at.selectbox(key="coref_head").value == tuple(CORE_HEAD)


# ---- step by step and tokenization -------------------------------------------------------------------------------
def test_a_link_opens_step_by_step_on_its_text_layer_head_word_and_tab(tiny):
    model, tok = tiny
    at = open_link("step_by_step.py", steps_text=TEXT, steps_layer="L1", steps_head="H2", steps_token="the (2)",
                   steps_tab="Multi-head")
    assert at.text_input(key="steps_text").value == TEXT
    assert at.selectbox(key="steps_layer").value == 1 and at.selectbox(key="steps_head").value == 2
    token = at.selectbox(key="steps_token")
    assert token.format_func(token.value) == "the (2)" and token.value == 4        # [CLS] the chef cooked the
    assert any(c.value.startswith("Largest |difference| to the model's own output") for c in at.caption)
    at = open_link("step_by_step.py", steps_tab="Why √d_k", steps_dk="1024", steps_no_scaling="true",
                   predict="false")
    assert at.select_slider(key="steps_dk").value == 1024 and at.toggle(key="steps_no_scaling").value is True
    at = open_link("step_by_step.py", steps_token="zebra")
    assert "The link asked for the word “zebra”, which is not on this page now; showing “it”." in infos(at)


def test_a_link_opens_tokenization_on_its_text_token_and_merge_step(tiny):
    at = open_link("tokenization.py", tok_text=TEXT, tok_token="the (2)", tok_merge_text="low lower lowest",
                   tok_step="2")
    assert at.text_area(key="tok_text").value == TEXT
    assert at.selectbox(key="tok_example").value == "Your own text"
    token = at.selectbox(key="tok_token")
    assert token.format_func(token.value) == "the (2)"
    assert at.text_input(key="tok_merge_text").value == "low lower lowest" and at.slider(key="tok_step").value == 2
    at = open_link("tokenization.py", tok_example="An emoji")
    assert at.text_area(key="tok_text").value == "I love raccoons 🦝"
