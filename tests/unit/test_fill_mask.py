"""Masked-LM fill-in with an encoder: which positions are hidden, what the head predicts, and
that the masked position sees both sides."""
import numpy as np
import pytest
import torch

from model import checkpoints
from model.data.word_tokenizer import MASK, SPECIALS, WordTokenizer
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.tasks.fill_mask import FillMaskError, encode_with_masks, fill_mask
from model.training.objectives import masked_token_losses

TEXT = "The cat sat on the mat."


@pytest.fixture
def tok():
    return WordTokenizer.build(["the cat sat on the mat .", "a dog ran to the park ."])


@pytest.fixture
def encoder(tok):
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=len(tok), d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=64)
    return Transformer(cfg).eval()


def test_chosen_words_and_typed_mask_become_mask_tokens(tok):
    ids, tokens, _, masked, original = encode_with_masks(tok, "The cat [MASK] on the mat.", [1])
    assert tokens == ["[CLS]", "the", "[MASK]", "[MASK]", "on", "the", "mat", ".", "[SEP]"]
    assert masked == [2, 3] and original == ["cat", None]
    assert ids[2] == ids[3] == MASK


def test_predictions_are_the_top_of_the_head_distribution(encoder, tok):
    r = fill_mask(encoder, tok, TEXT, [1, 5], top_k=5)
    assert r.masked == [2, 6] and r.original == ["cat", "mat"]
    assert r.top_probs.shape == (2, 5) and (np.diff(r.top_probs, axis=1) <= 0).all()
    assert not any(w in SPECIALS for row in r.top_words for w in row)
    ids = tok.encode(TEXT, add_cls_sep=True).ids
    ids[2] = ids[6] = MASK
    logits = encoder.lm_head(encoder.encode(torch.tensor([ids])).x)[0].detach()
    logits[:, :len(SPECIALS)] = float("-inf")
    probs = torch.softmax(logits, -1)
    for m, pos in enumerate(r.masked):
        best = probs[pos].topk(5)
        np.testing.assert_allclose(r.top_probs[m], best.values.numpy(), rtol=1e-5)
        assert r.top_words[m] == [tok.vocab[i] for i in best.indices.tolist()]


def test_original_prob_matches_the_masked_lm_loss(encoder, tok):
    r = fill_mask(encoder, tok, TEXT, [1])
    ids = tok.encode(TEXT, add_cls_sep=True).ids
    logits = encoder.lm_head(encoder.encode(torch.tensor([[*ids[:2], MASK, *ids[3:]]])).x)[0, 2].detach()
    logits[:len(SPECIALS)] = float("-inf")
    expected = torch.softmax(logits, -1)[tok.index["cat"]].item()
    assert r.original_prob[0] == pytest.approx(expected, rel=1e-5)
    loss = masked_token_losses(encoder, ids, [2])[0]
    assert loss > 0 and np.isfinite(loss)


def test_masked_position_attends_both_sides(encoder, tok):
    r = fill_mask(encoder, tok, TEXT, [2])
    row = r.weights[:, :, r.masked[0]]                 # (L, H, N)
    assert r.weights.shape == (2, 4, len(r.tokens), len(r.tokens))
    assert (row[..., :r.masked[0]].sum(-1) > 0).all() and (row[..., r.masked[0] + 1:].sum(-1) > 0).all()
    np.testing.assert_allclose(r.weights.sum(-1), 1.0, atol=1e-5)


@pytest.mark.parametrize("text,words,match", [(TEXT, [], "Nothing is masked"), (TEXT, [40], "does not exist"),
                                              ("the cat " * 80 + "[MASK]", [], "at most")])
def test_bad_requests_get_readable_errors(encoder, tok, text, words, match):
    with pytest.raises(FillMaskError, match=match):
        fill_mask(encoder, tok, text, words)


def test_shipped_encoder_fills_a_masked_word_sensibly():
    model, meta = checkpoints.load("coref_encoder")
    tok = WordTokenizer.from_dict(meta["tokenizer"])
    r = fill_mask(model, tok, "The animal didn't cross the street because it was too [MASK].", top_k=10)
    assert r.top_probs[0, 0] > 0.05
    assert r.top_words[0][0] in tok.vocab and r.top_words[0][0] not in (".", "the")
