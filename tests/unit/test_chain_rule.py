"""The chain rule on the shipped decoder: the factors' sum is the text's log-probability the training loss measures
(its recipe's own loss function, mean cross-entropy over the same targets), one factor per piece, and a scrambled
sentence is less likely than the sentence."""
import numpy as np
import pytest
import torch

from model import checkpoints
from model.data import text_input
from model.tasks.chain_rule import sentence_probability
from model.training.recipes import general_gpt

NAME = "general_gpt"


@pytest.fixture(scope="module")
def gpt():
    model, meta = checkpoints.load(NAME)
    return model.eval(), text_input.tokenizer_of(meta)


def test_the_factors_sum_to_minus_the_training_loss_times_the_pieces(gpt):
    model, tok = gpt
    text = "The cat sat on the mat."
    s = sentence_probability(model, tok, text)
    ids = torch.tensor([text_input.encode(tok, text, "bos").ids])
    with torch.no_grad():
        loss, n = general_gpt.loss_fn(model, ids)                      # mean over the n predicted pieces
    assert n == len(s.pieces) == len(s.log_probs)
    assert s.total == pytest.approx(-float(loss) * n, rel=1e-5)
    assert s.perplexity == pytest.approx(float(np.exp(float(loss))), rel=1e-5)
    assert np.all(s.log_probs < 0) and not s.cut


def test_a_scrambled_sentence_is_less_likely_and_a_long_text_is_cut(gpt):
    model, tok = gpt
    good = sentence_probability(model, tok, "The cat sat on the mat.")
    bad = sentence_probability(model, tok, "mat the on sat cat The.")
    assert bad.total < good.total
    long = sentence_probability(model, tok, "the cat " * model.config.max_len)
    assert long.cut and len(long.pieces) == model.config.max_len - 1


def test_an_empty_text_is_refused(gpt):
    with pytest.raises(ValueError, match="no text to score"):
        sentence_probability(*gpt, "")
