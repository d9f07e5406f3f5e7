"""The tokenization page: the pieces, ids and bytes it shows are the shipped BPE's, the four cuts are
segmentations()'s, the merge table is bpe_steps.learn's (and the hand counts of Sennrich et al.'s example), the
lookup Ωₑ·T equals the model's own embedding rows, and over-long text gets a message."""
import json
from unittest import mock

import numpy as np
import pytest

from app_pages.views.tokenization import EXAMPLES, MAX_CHARS
from model import checkpoints
from model.analysis.segmentation import segmentations
from model.data import bpe, bpe_steps, course_world, text_input
from model.data.bpe import load
from tests.app.conftest import open_page, plotly_array, plotly_chart
from tests.conftest import save_random_text_model

SENNRICH = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


def frame(at, column: str):
    """The dataframe on the page that has `column`."""
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no table with a column {column!r}")


def typed(text: str):
    at = open_page("tokenization.py", timeout=180)
    at.text_area(key="tok_text").set_value(text).run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.fixture(scope="module")
def default_page():
    at = open_page("tokenization.py", timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_page_opens_on_the_first_course_example_with_its_pieces(default_page):
    text = next(iter(EXAMPLES.values()))
    assert default_page.text_area(key="tok_text").value == text
    table = frame(default_page, "piece")
    assert list(table["piece"]) == load().encode(text).pieces
    assert any("walk" in m.value and "walked" in m.value for m in default_page.markdown
               if m.value.startswith("Pieces shared by different words"))


@pytest.mark.parametrize("text", ["我有一只猫", "I love raccoons 🦝 and Siobhan Oyelaran-Kowalczyk."])
def test_pieces_ids_and_bytes_are_the_shipped_tokenizers_and_spell_the_text(text):
    at = typed(text)
    enc = load().encode(text)
    table = frame(at, "piece")
    assert list(table["piece"]) == enc.pieces and list(table["id"]) == enc.ids
    assert not any("\ufffd" in p or p == "[UNK]" for p in table["piece"])
    # the bytes, read back, are the text's UTF-8 (a dummy space first unless it starts with a Chinese character)
    raw = bytes.fromhex(" ".join(table["bytes (hex)"]))
    assert raw == (text if text[0] == "我" else " " + text).encode("utf-8")
    assert {m.label: m.value for m in at.metric}["[UNK] pieces"] == "0"


def test_a_character_missing_from_the_vocabulary_is_named_with_its_bytes():
    at = typed("我有一只猫")
    table = frame(at, "piece")
    cat = table[table["characters"] == "猫"]
    assert " ".join(cat["bytes (hex)"]) == "E7 8C AB" and len(cat) == 2 and set(cat["span"]) == {"4–5"}
    assert any(m.value.startswith("Characters the vocabulary does not hold whole") and "E7 8C AB" in m.value
               for m in at.markdown)


def test_the_lengths_table_is_the_four_segmentations():
    text = "It takes great courage to let yourself appear weak. 我有一只猫"
    at = typed(text)
    cuts = segmentations(text, load(), course_world.tokenizer())
    table = frame(at, "tokens N")
    assert list(table["cut"]) == ["words", "BPE pieces", "characters", "bytes"]
    assert list(table["tokens N"]) == [c.length for c in cuts]
    assert list(table["pairs N² (one head, one layer)"]) == [c.length ** 2 for c in cuts]
    assert table["tokens N"][2] == len(text) and table["tokens N"][3] == len(text.encode("utf-8"))
    assert list(table["[UNK]"]) == [sum(cuts[0].unknown), 0, 0, 0]
    bars = plotly_chart(at, "tok_costs")["data"]
    assert list(plotly_array(bars[0]["y"])) == [c.length for c in cuts]


def test_merge_table_follows_the_learner_and_the_hand_counts():
    at = open_page("tokenization.py", timeout=180)
    at.text_input(key="tok_merge_text").set_value(SENNRICH).run(timeout=180)
    at.slider(key="tok_step").set_value(5).run(timeout=180)
    assert not at.exception
    table = frame(at, "merged")
    rows = list(zip(table["left"], table["right"], table["count"]))
    assert rows == [("e", "s", 9), ("es", "t", 9), ("l", "o", 7), ("lo", "w", 7), ("e", "w", 6)]  # by hand
    assert rows == [(*s.pair, s.count) for s in bpe_steps.learn(SENNRICH, 5)]
    assert any(m.value.startswith("Step **5** merges **e** + **w**") for m in at.markdown)


def test_embedding_by_one_hot_product_equals_the_models_own_rows(default_page):
    at = default_page
    at.selectbox(key="tok_model").set_value("coref_encoder")
    at.selectbox(key="tok_token").set_value(2).run(timeout=180)     # [CLS] I walk …: "walk", whatever the tokenizer
    assert not at.exception
    meta = checkpoints.read_meta("coref_encoder")
    tok = text_input.tokenizer_of(meta)
    ids = text_input.encode(tok, next(iter(EXAMPLES.values())), text_input.rule_of(meta)).ids
    column = plotly_array(plotly_chart(at, "tok_one_hot")["data"][0]["z"]).ravel()
    assert len(column) == len(tok) and column.sum() == 1 and column[ids[2]] == 1
    assert at.selectbox(key="tok_token").format_func(2) == "walk"    # picked by word (the URL holds it)
    assert {m.label: m.value for m in at.metric}["Largest |Ωₑ·T − embedding rows|, all tokens"] == "0"
    shown = frame(at, "(Ωₑ·T)[:, n]")
    np.testing.assert_array_equal(shown["(Ωₑ·T)[:, n]"], shown["embed.tok.weight[id]"])


def test_over_long_text_is_refused_with_a_warning_not_an_error():
    """A length limit is expected, not a fault: a yellow warning with what to do, no red error."""
    at = typed("a" * (MAX_CHARS + 1))
    assert not at.error
    assert [w.value for w in at.warning] == [
        "The text has 2,001 characters; this part of the page reads at most 2,000. Shorten it to see its tokens."]
    assert not any("piece" in df.value.columns for df in at.dataframe)


def test_a_character_no_word_vocabulary_holds_is_looked_up_by_its_own_pieces():
    at = typed("我有一只猫")
    at.selectbox(key="tok_model").set_value("coref_encoder")
    at.selectbox(key="tok_token").set_value(1).run(timeout=180)     # [CLS] 我 …
    ids = bpe.load().encode("我有一只猫", add_cls_sep=True).ids
    column = plotly_array(plotly_chart(at, "tok_one_hot")["data"][0]["z"]).ravel()
    assert column[ids[1]] == 1 and column[bpe.UNK] == 0
    assert "[UNK]" not in at.selectbox(key="tok_token").format_func(1)


def test_a_word_outside_the_models_vocabulary_is_looked_up_as_unk(tmp_path):
    """A word-level model (a tiny random one: the shipped models read BPE, which has no [UNK]) looks an unknown
    word up as [UNK]; the token is still picked by the word typed."""
    save_random_text_model(tmp_path, "tok_words_tiny_test", "i have a cat", d_model=16, n_heads=2, n_layers=1,
                           d_ff=32, max_len=32)
    with mock.patch.object(checkpoints, "ASSETS", tmp_path):
        at = typed("我有一只猫")
        at.selectbox(key="tok_token").set_value(1).run(timeout=180)     # [CLS] 我 …
    assert not at.exception, [e.message for e in at.exception]
    vocab = json.loads((tmp_path / "tok_words_tiny_test.json").read_text())["tokenizer"]["vocab"]
    column = plotly_array(plotly_chart(at, "tok_one_hot")["data"][0]["z"]).ravel()
    assert column[vocab.index("[UNK]")] == 1
    assert at.selectbox(key="tok_token").format_func(1) == "我"          # picked by word (the URL holds it)
    assert ("The token at position 1 (of 7, counted from 0 like every position): **我 → \\[UNK\\]**, id 1."
            in [c.value for c in at.caption])                            # position 1: [CLS] is position 0
    assert any("the embedding of **\\[UNK\\]**" in m.value for m in at.markdown)


def test_typed_markup_is_shown_as_text_in_chips_and_notes():
    at = typed("<b>bold</b> walks walked $x$ **no**")
    chips = next(m.value for m in at.markdown if m.value.startswith('<div style="line-height'))
    assert chips.count("&lt;") == 2 and "<b>" not in chips            # the HTML chips escape typed tags
    (warning,) = [w.value for w in at.warning]
    assert warning == ("Unknown to the word vocabulary: **\\$**, **\\***, **/**, **\\<**, **\\>**, **bold**, "
                       "**walked**, **walks**, **x**")                 # Markdown and LaTeX made inert
