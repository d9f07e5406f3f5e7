"""The explorer on a subword model: any text reads with no [UNK], and a switch shows whole words (attention to
a word summed over its pieces, from a word averaged over its pieces) or the pieces themselves."""

import numpy as np
import pytest

from model.tasks.attention_run import run_text
from model.tasks.word_attention import word_attention
from tests.app.conftest import only_text_model, open_page
from tests.app.conftest import plotly_array as values
from tests.app.conftest import plotly_chart as chart

TINY = "explorer_bpe_tiny_test"
TEXT = "Schmidhuber's vegetarian restaurant refused the sandwich because it was salty. 我有一只猫"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    with only_text_model(tmp_path_factory.mktemp("assets"), TINY, "", seed=2, tokenizer="bpe", d_model=16,
                         n_heads=2, n_layers=2, d_ff=32, max_len=64) as model_tok:
        yield model_tok


def _zoom(at):
    trace = chart(at, "explorer_zoom")["data"][0]
    return trace, values(trace["z"]).reshape(len(trace["y"]), len(trace["x"]))


def test_words_view_sums_pieces_and_the_switch_shows_the_pieces(tiny):
    model, tok = tiny
    at = open_page("explorer.py")
    at.text_area(key="explorer_text").set_value(TEXT).run()
    assert not at.exception, [e.message for e in at.exception]
    expected = run_text(model, tok, TEXT, "cls_sep")
    assert not any(expected.unknown)
    assert not any("[UNK]" in m.value for m in at.markdown)
    words = word_attention(expected.weights, expected.words)          # (L, H, W, W)
    trace, z = _zoom(at)
    shown = [str(x).rsplit(" ·", 1)[0] for x in trace["x"]]
    assert shown[:4] == ["[CLS]", "Schmidhuber's", "vegetarian", "restaurant"] and shown[-1] == "[SEP]"
    assert "我" in shown and "猫" in shown and len(shown) == len(expected.words)
    np.testing.assert_allclose(z, words[0, 0], atol=1e-5)
    at.toggle(key="explorer_words").set_value(False).run()
    assert not at.exception, [e.message for e in at.exception]
    _, z = _zoom(at)
    np.testing.assert_allclose(z, expected.weights[0, 0], atol=1e-6)
