"""Order blindness: with positions off an encoder is permutation equivariant; with positions on it is not."""
from dataclasses import replace

import numpy as np
import pytest
import torch

from model import checkpoints
from model.analysis.order import find_permutation, order_experiment
from model.data import text_input
from model.data.word_tokenizer import WordTokenizer
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer

A, B = "The woman ate the raccoon.", "The raccoon ate the woman."


@pytest.fixture
def tokenizer():
    return WordTokenizer.build([A, "a dog saw it"])


def tiny(tokenizer, **overrides):
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=len(tokenizer), d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=16,
                      pos_encoding="learned")
    return Transformer(replace(cfg, **overrides)).eval()


def test_find_permutation_matches_repeated_tokens_in_order():
    perm = find_permutation(["the", "woman", "ate", "the", "raccoon"], ["the", "raccoon", "ate", "the", "woman"])
    np.testing.assert_array_equal(perm, [0, 4, 2, 3, 1])


@pytest.mark.parametrize("b", ["The woman ate the dog.", "The woman ate the raccoon raccoon."])
def test_find_permutation_refuses_a_sentence_that_is_not_a_reordering(tokenizer, b):
    a_tokens, b_tokens = tokenizer.encode(A).tokens, tokenizer.encode(b).tokens
    with pytest.raises(ValueError, match="same words"):
        find_permutation(a_tokens, b_tokens)


@pytest.mark.parametrize("pos_encoding", ["learned", "sinusoidal"])
def test_positions_off_outputs_and_attention_are_only_permuted(tokenizer, pos_encoding):
    exp = order_experiment(tiny(tokenizer, pos_encoding=pos_encoding), tokenizer, A, B)
    assert exp.errors["off"]["output"] < 1e-5
    assert exp.errors["off"]["attention"] < 1e-6
    assert exp.errors["on"]["output"] > 1e-2
    assert exp.errors["on"]["attention"] > 1e-3
    run_a, run_b = exp.runs["off"]
    assert run_a.tokens[2] == "woman" and run_b.tokens[5] == "woman"
    np.testing.assert_allclose(run_b.hidden[-1][5], run_a.hidden[-1][2], atol=1e-5)   # same vector


def test_experiment_refuses_decoders(tokenizer):
    with pytest.raises(ValueError, match="encoder"):
        order_experiment(tiny(tokenizer, kind="decoder"), tokenizer, A, B)


def test_experiment_refuses_text_beyond_the_learned_table(tokenizer):
    long_a = " ".join(["the woman ate the raccoon"] * 4)
    with pytest.raises(ValueError, match="max_len=16"):
        order_experiment(tiny(tokenizer), tokenizer, long_a, long_a)


def test_shipped_encoder_is_order_blind_only_without_positions():
    model, meta = checkpoints.load("coref_encoder")
    tok = text_input.tokenizer_of(meta)
    exp = order_experiment(model, tok, A, B)
    assert exp.errors["off"]["output"] < 1e-4 and exp.errors["off"]["attention"] < 1e-5
    assert exp.errors["on"]["output"] > 0.05
