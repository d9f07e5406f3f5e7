"""One text rule per model, whatever its tokenizer: the same TextEncoding from the course-world word tokenizer
and from the byte-level BPE, whole words found for word-level views, and a run that reads any text."""
import numpy as np
import pytest
import torch

from model.data import bpe, text_input
from model.data.word_tokenizer import WordTokenizer
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.tasks.attention_run import run_text
from model.tasks.word_attention import word_attention


def test_rules_put_the_trained_special_tokens_around_the_text():
    tok = WordTokenizer.build(["the cat sat"])
    assert text_input.encode(tok, "the cat", "cls_sep").tokens == ["[CLS]", "the", "cat", "[SEP]"]
    assert text_input.encode(tok, "the cat", "bos").tokens == ["[BOS]", "the", "cat"]
    assert text_input.encode(tok, "the cat", "plain").tokens == ["the", "cat"]


def test_a_model_without_a_stated_rule_is_refused_by_name():
    with pytest.raises(ValueError, match="'old' states no text rule"):
        text_input.rule_of({"name": "old", "config": {}})


def test_bpe_words_group_the_pieces_of_each_typed_word():
    enc = text_input.encode(bpe.load(), "The sandwich-maker 我有猫", "cls_sep")
    assert not any(enc.unknown) and enc.tokens[0] == "[CLS]" and enc.tokens[-1] == "[SEP]"
    texts = list(enc.word_texts)
    assert texts[0] == "[CLS]" and texts[-1] == "[SEP]"
    assert texts[1:-1] == ["The", "sandwich", "-", "maker", "我", "有", "猫"]
    assert len(enc.words) == len(texts)
    assert [i for w in enc.words for i in w] == sorted(i for w in enc.words for i in w)


def test_run_text_reads_any_text_with_a_bpe_model_and_word_rows_sum_to_one():
    tok = bpe.load()
    torch.manual_seed(0)
    model = Transformer(ModelConfig(vocab_size=len(tok), d_model=16, n_heads=2, n_layers=1, d_ff=32,
                                    max_len=64)).eval()
    run = run_text(model, tok, "Schmidhuber's restaurant served 寿司.", "cls_sep")
    assert run.unknown == (False,) * len(run.tokens)
    covered = sorted(i for w in run.words for i in w)
    words = word_attention(run.weights, run.words)                     # (L, H, W, W)
    assert words.shape[-1] == len(run.words)
    if covered == list(range(len(run.tokens))):
        np.testing.assert_allclose(words.sum(-1), 1.0, atol=1e-5)
    else:                                                               # a piece of only whitespace is no word
        assert (words.sum(-1) <= 1.0 + 1e-5).all()


def test_cutting_keeps_only_whole_words():
    enc = text_input.encode(bpe.load(), "vegetarian restaurants everywhere", "cls_sep")
    short = enc.cut(3)
    assert len(short.ids) == 3 and all(max(w) < 3 for w in short.words)
