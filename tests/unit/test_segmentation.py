"""Four ways to cut a text, their lengths and attention cost, and the embedding lookup X = Ω_e·T, checked
against counts done by hand and against plain row indexing."""
import numpy as np

from model.analysis.segmentation import embed_by_product, one_hot_columns, segmentations
from model.data.bpe import load
from model.data.word_tokenizer import WordTokenizer


def test_characters_and_bytes_are_counted_as_written():
    words = WordTokenizer.build(["I have a cat"])
    cuts = {s.name: s for s in segmentations("I have a 猫", load(), words)}
    assert cuts["characters"].length == 10                           # 8 ASCII characters, a space, 猫
    assert cuts["bytes"].length == 12 and cuts["bytes"].pieces[-3:] == ("<0xE7>", "<0x8C>", "<0xAB>")
    assert cuts["words"].pieces == ("i", "have", "a", "猫") and cuts["words"].unknown == (False,) * 3 + (True,)
    assert cuts["BPE pieces"].unknown == (False,) * cuts["BPE pieces"].length
    assert cuts["bytes"].attention_pairs == 144


def test_bpe_sits_between_words_and_characters_on_english():
    text = "The restaurant refused to serve me a ham sandwich because it only cooks vegetarian food."
    words = WordTokenizer.build([text])
    n = {s.name: s.length for s in segmentations(text, load(), words)}
    assert n["words"] <= n["BPE pieces"] < n["characters"] <= n["bytes"]


def test_one_hot_product_picks_the_embedding_columns():
    rng = np.random.default_rng(3)
    omega = rng.normal(size=(4, 9))                                    # D = 4, |V| = 9
    ids = [5, 0, 5, 8]
    t = one_hot_columns(ids, 9)
    assert t.shape == (9, 4) and t.sum() == 4 and t[5, 0] == t[5, 2] == 1.0
    np.testing.assert_array_equal(embed_by_product(omega, ids), omega[:, ids])
