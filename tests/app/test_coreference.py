"""The Coreference page in AppTest: the paragraph by default (in whole words), the gallery, typed text with
words no vocabulary holds whole and without pronouns, the ranking computed from the model, the minimal-pair
difference. The tabs are lazy (bound to the URL): a test opens one through its key. The page is opened as a
lecturer shows it, predictions off (?predict=false): the prediction itself is tested in tests/app/test_predict.py."""
import base64
import json

import numpy as np
import pytest

from model import checkpoints
from model.data import course_world as corpus
from tests.app.conftest import open_link


def _charts(at) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def _array(value) -> np.ndarray:
    """A Plotly 7 typed array ({"dtype", "bdata", "shape"}) or a plain list -> numpy."""
    if isinstance(value, dict):
        shape = [int(n) for n in str(value["shape"]).split(",")] if "shape" in value else -1
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).reshape(shape)
    return np.asarray(value)


def _pronoun_box(at):
    return next(s for s in at.selectbox if s.label == "Pronoun")


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def open_page(page: str, timeout: float = 120):
    """A fresh session on the page `page` with every answer shown at once (?predict=false)."""
    return open_link(page, predict="false")


def _open_tab(at, label: str):
    at.session_state["coref_tab"] = label
    return at.run()


@pytest.fixture(scope="module")
def page():
    at = open_page("coreference.py", timeout=120)
    assert not at.exception
    return at


def test_default_is_the_paragraph_and_it_points_at_restaurant(page):
    assert page.text_area(key="coref_text").value == corpus.PARAGRAPH
    assert "points **it** (word 11) at **restaurant** (word 2)" in _markdown(page)
    # picked by word, as the URL names it (a word-level model lowercases, a BPE model keeps "Their")
    assert [o.lower() for o in _pronoun_box(page).options][:3] == ["it", "they", "their"]


def test_every_head_is_listed_and_the_charts_are_drawn(page):
    table = page.dataframe[0].value
    assert len(table) == 16 and table["points at"].iloc[0]
    assert len(_charts(page)) == 3               # arrows (desktop, phone), rows: other tabs wait
    at = _open_tab(open_page("coreference.py", timeout=120), "Heads ranked")
    assert not at.exception
    charts = _charts(at)
    assert len(charts) == 1
    ranking = next(c for c in charts if c["data"][0]["type"] == "bar")
    assert len(ranking["data"][0]["y"]) == 16
    layer, head = checkpoints.read_meta("coref_encoder")["coref_head"]
    assert ranking["data"][0]["y"][0] == f"L{layer} H{head}"        # measured live: the chosen head ranks first
    accuracy = _array(ranking["data"][0]["x"])
    assert accuracy[0] >= 0.95 and accuracy[-1] < 0.5


def test_their_also_points_at_restaurant(page):
    _pronoun_box(page).select_index(2).run()
    assert not page.exception
    assert "points **Their** (word 30) at **restaurant** (word 2)" in _markdown(page)


def test_gallery_example_replaces_the_text_and_flips_the_referent():
    at = open_page("coreference.py", timeout=120)
    at.selectbox(key="coref_example").select("The wide street").run()
    assert not at.exception
    assert at.text_area(key="coref_text").value == corpus.CLASSICS[2][1]
    assert "at **street**" in _markdown(at)
    at.selectbox(key="coref_example").select("The tired animal").run()
    assert "at **animal**" in _markdown(at)


def test_a_word_read_in_pieces_and_text_without_pronoun_still_work():
    at = open_page("coreference.py", timeout=120)
    at.text_area(key="coref_text").input("The zorblax ate the <b>raccoon</b>.").run()
    assert not at.exception
    assert not at.warning                                        # no [UNK]: nothing to flag
    assert at.selectbox(key="coref_example").value == "Your own text"
    assert any("no pronoun" in i.value for i in at.info)
    assert "points **The** (word 1)" in _markdown(at)            # any word can be picked instead
    _pronoun_box(at).select(2).run()
    assert "points **zorblax** (word 2, pieces" in _markdown(at)


def test_empty_text_asks_for_input():
    at = open_page("coreference.py", timeout=120)
    at.text_area(key="coref_text").input("   ").run()
    assert not at.exception
    assert any("Type a sentence" in i.value for i in at.info)


def test_minimal_pair_difference_changes_sign_between_the_nouns():
    at = _open_tab(open_page("coreference.py", timeout=120), "Minimal pairs")
    at.selectbox(key="coref_pair").select("big / small").run()
    assert not at.exception
    assert "in A, **it** → **trophy**; in B → **suitcase**" in _markdown(at)
    diff = next(c for c in _charts(at) if c["data"][0]["type"] == "heatmap" and c["data"][0]["zmin"] < 0)
    x, z = diff["data"][0]["x"], _array(diff["data"][0]["z"])
    assert x[2] == "trophy ·2" and x[7] == "suitcase ·7"
    layer, head = checkpoints.read_meta("coref_encoder")["coref_head"]
    row = z[layer * 4 + head]
    assert row[2] > 0.3 and row[7] < -0.3       # A looks more at trophy, B more at suitcase


def test_long_text_is_cut_to_the_model_length_with_a_notice():
    at = open_page("coreference.py", timeout=120)
    at.text_area(key="coref_text").input("The cat saw it. " * 60).run()
    assert not at.exception
    assert any("reads at most 128" in i.value for i in at.info)
    assert len(at.dataframe[0].value) == 16


def test_heads_that_beat_the_advertised_head_come_with_the_reason():
    """The advertised head is chosen on validation pronouns; a head ahead of it on the test pronouns (or on the
    typed text) gets one line saying so."""
    from unittest import mock

    from app_pages._runs import HeadAccuracy
    chosen = tuple(checkpoints.read_meta("coref_encoder")["coref_head"])
    accuracy = np.full((4, 4), 0.3)
    accuracy[chosen] = 0.811
    accuracy[3, 2], accuracy[3, 3] = 0.992, 0.986                      # the numbers a lecturer saw
    accuracy[chosen] = 0.811
    fake = HeadAccuracy(accuracy, 100, baseline_first_noun=0.45, baseline_nearest_noun=0.5)
    with mock.patch("app_pages.views.coreference.coref_head_accuracy", return_value=fake):
        at = _open_tab(open_page("coreference.py", timeout=120), "Heads ranked")
    assert not at.exception
    ahead = [f"L3 H{h}" for h in (2, 3) if (3, h) != chosen]
    name = f"L{chosen[0]} H{chosen[1]}"
    assert [c.value for c in at.caption if "validation" in c.value] == [
        f"{', '.join(ahead)} score{'s' * (len(ahead) == 1)} above {name} here: {name} was chosen once, on a "
        "held-out validation set of pronouns, before these test pronouns were measured; heads close on one set "
        "can change places on another."]
    at = _open_tab(at, "Pronoun → heads")
    table = at.dataframe[0].value
    mine = float(table.loc[table["head"] == name, "weight"].iloc[0])
    stronger = table.loc[table["weight"] > mine, "head"].tolist()
    assert stronger                                                     # the paragraph's "it": heads ahead of it
    assert [c.value for c in at.caption if "not on this text" in c.value] == [
        f"{', '.join(stronger)} point{'s' * (len(stronger) == 1)} with more weight than {name} on this text: {name} "
        "was chosen by its accuracy on a held-out validation set of pronouns, not on this text."]


def test_a_phone_gets_the_arcs_wrapped_after_a_few_words(page):
    """At 390 px the desktop layout drew 70 units of words on one line and the words overlapped. A second layout
    wraps after 24 units (about 350 px at 15 px type, measured in chromium), and CSS shows one of the two by
    the screen's width."""
    styles = " ".join(el.proto.body for el in page.get("html"))
    assert "@media (max-width: 640px) { .st-key-coref_wide { display: none; } }" in styles
    assert "@media (min-width: 641px) { .st-key-coref_narrow { display: none; } }" in styles
    charts = {el.proto.id.split("-", 2)[-1]: json.loads(el.proto.spec) for el in page.get("plotly_chart")}
    wide, phone = charts["coref_arrows"], charts["coref_arrows_phone"]
    words = phone["layout"]["annotations"]
    assert [a["text"] for a in words] == [a["text"] for a in wide["layout"]["annotations"]]
    assert phone["layout"]["xaxis"]["range"][1] <= 24 + 4 and wide["layout"]["xaxis"]["range"][1] >= 70
    lines = {}
    for a in words:                                     # no two words of a line overlap at 0.62 units a character
        lines.setdefault(a["y"], []).append((a["x"], len(a["text"])))
    for row in lines.values():
        row.sort()
        for (x0, n0), (x1, n1) in zip(row, row[1:]):
            assert x1 - x0 >= 0.62 * (max(2, n0) + max(2, n1)) / 2
        assert row[-1][0] + (0.62 * max(2, row[-1][1]) + 1.2) / 2 <= 24 + 1e-9


def test_a_link_made_in_chinese_opens_its_tab_and_example_and_a_language_switch_keeps_them():
    """A bound tab and gallery write their shown (Chinese) labels into a link: opened in English, the link's tab and
    example are the same ones, and switching to Chinese keeps the open tab ("Minimal pairs" and the selectbox
    "Minimal pair" must not share a translation, else the tab's name would lead to the selectbox's)."""
    at = open_link("coreference.py", predict="false", coref_tab="最小对比句", coref_example="太宽的街道")
    assert at.session_state["coref_tab"] == "Minimal pairs" and at.selectbox(key="coref_pair").label == "Minimal pair"
    assert at.selectbox(key="coref_example").value == "The wide street"
    assert at.text_area(key="coref_text").value == corpus.CLASSICS[2][1]
    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["coref_tab"] == "最小对比句" and at.selectbox(key="coref_pair").label == "一组最小对比句"
    assert at.text_area(key="coref_text").value == corpus.CLASSICS[2][1]
