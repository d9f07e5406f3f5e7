"""AppTest of the decoder & generation page against the shipped course_gpt (and coref_encoder)."""
import base64
import json

import numpy as np
import pytest

from model import checkpoints
from model.tasks import generation as g
from tests.app.conftest import open_page


def chart(at, key):
    el = next(e for e in at.get("plotly_chart") if json.loads(e.proto.spec).get("layout") is not None
              and e.proto.id and key in e.proto.id)
    return json.loads(el.proto.spec)


def values(arr):
    """Plotly 7 packs numpy arrays as {"dtype", "bdata"}; plain lists pass through."""
    if isinstance(arr, dict):
        return np.frombuffer(base64.b64decode(arr["bdata"]), dtype=arr["dtype"])
    return np.array(arr, dtype=float)


@pytest.fixture(scope="module")
def at():
    at = open_page("generation.py")
    assert not at.exception, at.exception
    return at


@pytest.fixture(scope="module")
def gpt():
    model, meta = checkpoints.load("course_gpt")
    from model.data.word_tokenizer import WordTokenizer
    return model, WordTokenizer.from_dict(meta["tokenizer"])


def test_page_renders_every_tab(at):
    assert at.title[0].value == "Decoder & generation"
    assert [t.label for t in at.tabs] == ["Next token", "Generate step by step", "Beam search",
                                          "Fill-in (encoder)", "Objectives side by side"]
    assert len(at.get("plotly_chart")) >= 5
    assert not at.error


def test_next_token_bars_are_the_models_probabilities(at, gpt):
    model, tok = gpt
    probs = g.next_token_probs(model, tok.encode(at.text_input(key="gen_prompt").value, bos=True).ids)
    bars = chart(at, "next_bars")["data"][0]
    np.testing.assert_allclose(values(bars["x"]), np.sort(probs)[::-1][:len(values(bars["x"]))], rtol=1e-5)
    assert at.metric[0].value == tok.vocab[int(probs.argmax())]


def test_top_k_with_k_1_shows_the_greedy_text(at):
    greedy = at.markdown[0].value
    at.radio(key="gen_strategy").set_value("top_k").run()
    at.slider(key="gen_k").set_value(1).run()
    at.number_input(key="gen_seed").set_value(3).run()
    assert not at.exception
    assert at.markdown[0].value == greedy
    at.slider(key="gen_k").set_value(10).run()
    at.slider(key="gen_temp").set_value(2.5).run()
    assert at.markdown[0].value != greedy
    at.radio(key="gen_strategy").set_value("greedy").run()


def test_step_buttons_move_the_attention_row(at):
    last = at.slider(key="gen_step").value
    assert last == at.slider(key="gen_step").max >= 2           # a new run opens at its last step
    at.button(key="gen_back").click().run()
    assert at.slider(key="gen_step").value == last - 1
    z = values(chart(at, "gen_growth")["data"][0]["z"])
    assert np.isnan(z).sum() > 0
    at.button(key="gen_next").click().run()
    assert at.slider(key="gen_step").value == last


def test_beam_table_lists_width_beams_and_greedy(at):
    at.slider(key="beam_width").set_value(4).run()
    df = at.dataframe[0].value
    assert len(df) == 5 and df["rank"].iloc[-1] == "greedy"
    assert df["rank"].iloc[:4].tolist() == ["1", "2", "3", "4"]
    scores = df["score / n^α"].iloc[:4].astype(float).to_numpy()
    assert (np.diff(scores) <= 0).all()
    np.testing.assert_allclose(scores, df["Σ log p"].iloc[:4].astype(float), atol=1e-4)    # α = 0: the plain sum
    assert not at.exception


def test_too_long_prompt_gets_a_readable_error(at):
    at.text_input(key="gen_prompt").set_value("the cat " * 300).run()
    assert not at.exception
    assert any("positions" in e.value for e in at.error)
    at.text_input(key="gen_prompt").set_value("").run()
    assert not at.exception
    assert sum("at least one word" in e.value for e in at.error) == 3      # next token, generate, beam
    at.text_input(key="gen_prompt").set_value("the restaurant refused to serve me a").run()


def test_an_empty_prompt_keeps_the_fill_in_and_objectives_tabs(at):
    """Emptying the prompt used to stop the page before the tabs, so Streamlit dropped every widget in them:
    the fill-in text and the objectives picks were reset once the prompt came back."""
    at.text_input(key="fill_text").set_value("the [MASK] crossed the street .").run()
    at.text_input(key="gen_prompt").set_value("   ").run()
    assert not at.exception
    assert at.text_input(key="fill_text").value == "the [MASK] crossed the street ."
    assert chart(at, "fill_bars_0")["data"][0]["type"] == "bar"            # the encoder still fills in
    assert chart(at, "obj_losses")["data"]                                  # and the objectives are drawn
    at.text_input(key="gen_prompt").set_value("the restaurant refused to serve me a").run()
    at.text_input(key="fill_text").set_value("The animal didn't cross the street because it was too tired.").run()


def test_fill_in_predicts_the_hidden_word(at):
    at.multiselect(key="fill_words").set_value([]).run()
    assert any("Nothing is masked" in e.value for e in at.error)
    at.text_input(key="fill_text").set_value("the trophy didn't fit into the suitcase because it was too [MASK] .")
    at.run()
    bars = chart(at, "fill_bars_0")["data"][0]
    assert len(values(bars["x"])) == at.slider(key="fill_k").value
    assert not at.exception


def test_objectives_count_loss_terms_and_use_the_decoders_losses(at, gpt):
    from model.data.word_tokenizer import split_words
    from model.training.objectives import causal_token_losses
    model, tok = gpt
    at.multiselect(key="obj_masked").set_value([1, 3, 4]).run()
    words = split_words(at.text_input(key="obj_text").value)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Encoder loss terms"] == f"3 of {len(words)}"
    assert metrics["Decoder loss terms"] == f"{len(words)} of {len(words)}"
    losses = causal_token_losses(model, tok.encode(" ".join(words), bos=True).ids)
    assert metrics["Decoder mean loss (nats)"] == f"{losses.mean():.3f}"
    z = chart(at, "obj_losses")["data"][0]["z"]
    rows = values(z).reshape(2, -1) if isinstance(z, dict) else np.array(z, dtype=float)
    assert np.isfinite(rows[1]).all() and np.isfinite(rows[0]).sum() == (3 if "coref_encoder" in
                                                                          checkpoints.shipped() else 0)
