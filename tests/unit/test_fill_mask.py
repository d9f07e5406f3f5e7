"""Masked-LM fill-in with an encoder on any text, in BPE pieces: which positions are hidden (typed masks, whole
words of several pieces), what the head predicts, that the masked position sees both sides, and the messages."""
import numpy as np
import pytest
import torch

from model import checkpoints
from model.data import bpe
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.tasks.fill_mask import FillMaskError, encode_with_masks, fill_mask
from model.training.objectives import masked_token_losses

TEXT = "The restaurants were busy."


@pytest.fixture(scope="module")
def tok():
    return bpe.load()


@pytest.fixture(scope="module")
def encoder(tok):
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=len(tok), d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=64)
    return Transformer(cfg).eval()


def head_probs(model, ids):
    """The masked-LM head's distribution at every position, special tokens excluded: (N, V)."""
    with torch.inference_mode():
        logits = model.lm_head(model.encode(torch.tensor([ids])).x)[0].double()
        logits[:, :len(bpe.SPECIALS)] = float("-inf")
        return torch.softmax(logits, -1)


@pytest.mark.parametrize("spelling", ["<mask>", "[MASK]"])
def test_a_typed_mask_masks_exactly_that_position(tok, spelling):
    mt = encode_with_masks(tok, f"The {spelling} pulled into the station.")
    assert mt.masked == (2,) and mt.original_ids == (-1,) and mt.hidden_word == (-1,)
    assert mt.tokens[2] == "[MASK]" and mt.ids.count(bpe.MASK) == 1
    # the mask took the space before it: the rest is the text without the mask, piece for piece
    plain = tok.encode("The pulled into the station.", add_cls_sep=True).ids
    assert list(mt.ids[:2] + mt.ids[3:]) == plain
    assert "<mask>" not in mt.words and "[MASK]" not in mt.words


def test_a_hidden_word_of_several_pieces_becomes_as_many_masks(tok):
    pieces = tok.encode("restaurants").ids
    assert len(pieces) > 1                                    # the claim needs a word of several pieces
    mt = encode_with_masks(tok, TEXT, [1])
    assert mt.words[1] == "restaurants" and mt.word_pieces[1] == len(pieces)
    assert mt.original_ids == tuple(pieces) and mt.hidden_word == (1,) * len(pieces)
    assert mt.masked == tuple(range(2, 2 + len(pieces)))
    assert [mt.tokens[k] for k in mt.masked] == ["[MASK]"] * len(pieces)
    assert mt.ids.count(bpe.MASK) == len(pieces)


def test_typed_special_spellings_other_than_masks_stay_plain_text(tok):
    mt = encode_with_masks(tok, "[CLS] hello [SEP] <mask>")
    specials = [i for i in mt.ids if i < len(bpe.SPECIALS)]
    assert specials == [bpe.CLS, bpe.MASK, bpe.SEP]           # only the real edges and the typed mask
    assert mt.ids[0] == bpe.CLS and mt.ids[-1] == bpe.SEP
    assert tok.decode(mt.ids[1:-2]) == "[CLS] hello [SEP]"
    assert mt.words == ("[", "CLS", "]", "hello", "[", "SEP", "]")


def test_predictions_are_the_top_of_the_head_distribution(encoder, tok):
    r = fill_mask(encoder, tok, "The <mask> pulled into the <mask>.", top_k=5)
    assert r.masked == (2, 7)
    assert r.top_probs.shape == (2, 5) and (np.diff(r.top_probs, axis=1) <= 0).all()
    assert (r.top_ids >= len(bpe.SPECIALS)).all()            # no special token is ever proposed
    probs = head_probs(encoder, list(r.text.ids))
    for m, pos in enumerate(r.masked):
        best = probs[pos].topk(5)
        np.testing.assert_allclose(r.top_probs[m], best.values.numpy(), rtol=1e-5)
        assert r.top_ids[m].tolist() == best.indices.tolist()
        assert r.top_pieces[m] == tuple(tok.piece(i) for i in best.indices.tolist())


def test_the_hidden_pieces_probability_and_rank(encoder, tok):
    r = fill_mask(encoder, tok, TEXT, [1])
    probs = head_probs(encoder, list(r.text.ids))
    for m, (pos, piece) in enumerate(zip(r.masked, r.text.original_ids)):
        assert r.original_prob[m] == pytest.approx(float(probs[pos, piece]), rel=1e-6)
        assert r.original_rank[m] == 1 + int((probs[pos] > probs[pos, piece]).sum())
    original = tok.encode(TEXT, add_cls_sep=True).ids
    loss = masked_token_losses(encoder, original, list(r.masked))       # −log p without excluding specials
    assert (loss >= -np.log(r.original_prob) - 1e-6).all() and np.isfinite(loss).all()


def test_a_typed_mask_has_no_hidden_piece(encoder, tok):
    r = fill_mask(encoder, tok, "The <mask> pulled into the station.", [0])
    assert r.masked == (1, 2) and r.text.original_ids[1] == -1
    assert np.isnan(r.original_prob[1]) and r.original_rank[1] == 0 and r.original_rank[0] >= 1


def test_masked_position_attends_both_sides(encoder, tok):
    r = fill_mask(encoder, tok, "The <mask> pulled into the station.")
    pos = r.masked[0]
    row = r.weights[:, :, pos]                                # (L, H, N)
    assert r.weights.shape == (2, 4, len(r.tokens), len(r.tokens))
    assert (row[..., :pos].sum(-1) > 0).all() and (row[..., pos + 1:].sum(-1) > 0).all()
    np.testing.assert_allclose(r.weights.sum(-1), 1.0, atol=1e-5)


def test_chinese_text_fills_in(encoder, tok):
    r = fill_mask(encoder, tok, "我有一只<mask>。", top_k=3)
    assert r.tokens[:5] == ("[CLS]",) + tuple(tok.encode("我有一只").pieces) and r.tokens[5] == "[MASK]"
    assert r.top_probs.shape == (1, 3) and (r.top_ids >= len(bpe.SPECIALS)).all()


def test_bad_requests_get_readable_errors(encoder, tok):
    def message(text, words=()):
        with pytest.raises(FillMaskError) as e:
            fill_mask(encoder, tok, text, words)
        return str(e.value)

    assert message(TEXT) == "Nothing is masked: type [MASK] or <mask> in the text, or pick a word to hide."
    assert message("") == "Nothing is masked: type [MASK] or <mask> in the text, or pick a word to hide."
    assert message(TEXT, [5]) == "Word 5 does not exist: the text has 5 words (0 to 4)."    # ., a word of its own
    assert message("  ", [0]) == "Word 0 does not exist: the text has 0 words."
    long = "restaurant " * 70 + "<mask>"
    n = len(tok.encode(long, add_cls_sep=True, masks=True).ids)
    assert n > 64
    assert message(long) == (f"The text is {n} pieces long with [CLS] and [SEP]; this encoder reads at most 64. "
                             "Shorten it.")


def test_fill_in_refuses_a_word_tokenizer():
    from model.data.word_tokenizer import WordTokenizer
    with pytest.raises(TypeError, match="byte-level BPE"):
        encode_with_masks(WordTokenizer.build(["the cat"]), "the [MASK]")


def test_shipped_general_encoder_fills_in_above_chance(tok):
    """The shipped masked LM on a WordNet-style gloss it never saw: the hidden piece ranks far above chance
    (8,185 ordinary tokens), and the typed mask gets an ordinary piece."""
    model, meta = checkpoints.load("general_encoder")
    assert meta["text_input"] == "cls_sep" and model.config.max_len == 128
    r = fill_mask(model, tok, "a person who plays the piano: a musician who <mask> the piano.", [1], top_k=10)
    assert r.text.words[1] == "person" and r.original_rank[0] <= 200
    assert (r.top_ids >= len(bpe.SPECIALS)).all() and r.top_probs[:, 0].min() > 10 / len(tok)
