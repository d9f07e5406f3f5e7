"""The decoder page's "Learning from the prompt" tab (AppTest, shipped incontext_copy): what it draws is the model's
own prediction on the held-out prompt the number names, "New prompt" and the span length change the prompt, zeroing
the induction head takes the copying away, and a link's out-of-range number gets the page's notice."""
import numpy as np
import pytest

from model import checkpoints
from model.analysis import incontext
from model.data import text_input
from tests.app.conftest import open_link, open_tab, plotly_array, plotly_chart

NAME = "incontext_copy"
TAB = "Learning from the prompt"


@pytest.fixture(scope="module")
def shipped():
    if NAME not in checkpoints.shipped():
        pytest.fail(f"{NAME} is not in assets/: train it with `python -m model.train {NAME}`")
    model, meta = checkpoints.load(NAME)
    return model, meta, text_input.tokenizer_of(meta)


@pytest.fixture(scope="module")
def at():
    return open_tab("generation.py", "gen_tab", TAB)


def metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def strip_of(at) -> tuple[list, list]:
    """(the prompt's tokens along the top, the guesses along the bottom) of the prompt figure."""
    layout = plotly_chart(at, "ic_strip")["layout"]
    return layout["xaxis2"]["ticktext"], layout["xaxis"]["ticktext"]


def test_tab_draws_the_models_predictions_on_the_numbered_prompt(at, shipped):
    model, meta, tok = shipped
    p = incontext.prompts(meta["lab"]["data"], 0, 1, 8)
    guess = incontext.predict(model, p.ids)[0]
    top, bottom = strip_of(at)
    assert top == [tok.vocab[i] for i in p.ids[0]] and bottom == ["–", *(tok.vocab[i] for i in guess[:-1])]
    q = np.arange(p.second[0], p.second[0] + 7)
    assert metric(at, "Second copy, this prompt") == f"{int((guess[q] == p.ids[0, q + 1]).sum())} of 7"
    assert metric(at, "Copy accuracy, held out") == f"{meta['metrics']['incontext_copy_acc']:.3f}"
    curve = plotly_chart(at, "ic_curve")["data"]
    assert np.nanmean(plotly_array(curve[0]["y"])) > 0.75 > 0.25 > np.nanmean(plotly_array(curve[1]["y"]))
    assert any("L1 H0" in m.value and "Olsson" not in m.value for m in at.markdown)
    assert any("Brown et al. 2020" in m.value for m in at.markdown)


def test_new_prompt_span_and_ablation_change_what_is_drawn(at, shipped):
    _model, meta, tok = shipped
    at.button(key="ic_new").click().run()
    at.slider(key="ic_span").set_value(5).run()
    assert not at.exception and at.number_input(key="ic_seed").value == 1
    p = incontext.prompts(meta["lab"]["data"], 1, 1, 5)
    assert strip_of(at)[0] == [tok.vocab[i] for i in p.ids[0]]
    at.toggle(key="ic_ablate").set_value(True).run()
    assert not at.exception
    second = plotly_array(plotly_chart(at, "ic_curve")["data"][0]["y"])
    assert np.nanmean(second) < 0.25                                      # no copying without the head
    assert at.query_params.get("ic_seed") == "1"                          # "New prompt" moves the link too


def test_a_link_with_a_span_out_of_range_gets_the_notice():
    at = open_link("generation.py", gen_tab=TAB, ic_span="40", ic_seed="12")
    assert "The link asked for span length “40”, which is not on this page now; showing “8”." in \
        [i.value for i in at.info]
    assert at.slider(key="ic_span").value == 8 and at.number_input(key="ic_seed").value == 12
