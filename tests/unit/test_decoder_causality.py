"""A decoder never sees the future, whatever mask a caller passes (none, all-True, a padding mask, one per layer)
and whichever entry point runs it: the engine's encode and forward, coreference's batch_weights, run_text (on the
shipped general_gpt too), generation with and without its key/value cache, and what evaluation reads (head scores,
loss terms). Two checks each: captured weights above the diagonal are exactly 0, and what position i computes does
not change when only later tokens change."""
import numpy as np
import pytest
import torch

from model import checkpoints
from model.analysis.head_scores import attention_weights
from model.data import text_input
from model.data.word_tokenizer import PAD, WordTokenizer
from model.engine.capture import capturing
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.tasks.attention_run import run_text
from model.tasks.coreference import batch_weights
from model.tasks.generation import full_recompute, generate
from model.training.objectives import causal_token_losses

A = [3, 5, 9, 4, 7, 6, 8, 10]
B = A[:4] + [11, 12, 13, 14]              # the same first K tokens, then different ones
K = 4
T = len(A)


@pytest.fixture(scope="module")
def decoder():
    torch.manual_seed(0)
    return Transformer(ModelConfig(vocab_size=40, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=32,
                                   kind="decoder")).eval()


def _masks(ids: torch.Tensor, n_layers: int) -> dict:
    """What callers pass: nothing, every pair allowed, a padding mask (B, 1, 1, T), one all-True mask per layer."""
    ones = torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool)
    return {"none": None, "all True": ones, "padding": (ids != PAD)[:, None, None, :],
            "per layer": [ones] * n_layers}


def _above_diagonal(w: np.ndarray) -> np.ndarray:
    """The weights of keys after their query, (..., N, N) -> flat."""
    return w[..., np.triu_indices(w.shape[-1], 1)[0], np.triu_indices(w.shape[-1], 1)[1]]


MASK_KINDS = ["none", "all True", "padding", "per layer"]


@pytest.mark.parametrize("kind", MASK_KINDS)
def test_captured_weights_above_the_diagonal_are_exactly_zero_whatever_mask(decoder, kind):
    ids = torch.tensor([A, B])
    with torch.inference_mode(), capturing():
        out = decoder.encode(ids, mask=_masks(ids, 2)[kind])
    w = torch.stack([i.weights for i in out.intermediates]).numpy()          # (L, B, H, T, T)
    assert np.all(_above_diagonal(w) == 0)
    np.testing.assert_allclose(w.sum(-1), 1, atol=1e-6)


@pytest.mark.parametrize("kind", MASK_KINDS)
@pytest.mark.parametrize("captured", [False, True])
def test_position_i_ignores_later_tokens_on_both_paths_whatever_mask(decoder, kind, captured):
    ids = torch.tensor([A, B])
    with torch.inference_mode(), (capturing() if captured else torch.inference_mode()):
        x = decoder.encode(ids, mask=_masks(ids, 2)[kind]).x                   # (2, T, C)
    np.testing.assert_allclose(x[0, :K].numpy(), x[1, :K].numpy(), atol=1e-6)
    assert not np.allclose(x[0, K:].numpy(), x[1, K:].numpy(), atol=1e-3)       # later tokens do differ
    with torch.inference_mode():
        logits = decoder(ids, mask=_masks(ids, 2)[kind])                      # the fast forward
    np.testing.assert_allclose(logits[0, :K].numpy(), logits[1, :K].numpy(), atol=1e-6)


def test_batch_weights_of_a_decoder_are_causal_and_padding_changes_nothing(decoder):
    tok = WordTokenizer.build(["a b c d e f g h i j k"])
    short, long = "a b c d", "a b c e f g h i j"                               # share [CLS] a b c
    alone = batch_weights(decoder, tok, [short], batch_size=1)[0]
    together = batch_weights(decoder, tok, [short, long], batch_size=2)
    for w in together:
        assert np.all(_above_diagonal(w) == 0)
    np.testing.assert_allclose(alone, together[0], atol=1e-6)                   # the padding is after it
    np.testing.assert_allclose(together[0][..., :4, :4], together[1][..., :4, :4], atol=1e-6)


@pytest.fixture(scope="module")
def general_gpt():
    model, meta = checkpoints.load("general_gpt")
    return model, text_input.tokenizer_of(meta), text_input.rule_of(meta)


@pytest.mark.parametrize("full_mask", [False, True])
def test_run_text_on_general_gpt_is_causal_even_with_a_full_mask(general_gpt, full_mask):
    model, tok, rule = general_gpt
    texts = "The cat sat on the mat and slept", "The cat sat on the mat and barked loudly"
    runs = []
    for text in texts:
        n = len(text_input.encode(tok, text, rule).ids)
        runs.append(run_text(model, tok, text, rule, mask=np.ones((n, n), dtype=bool) if full_mask else None))
    same = next(i for i, (a, b) in enumerate(zip(runs[0].ids, runs[1].ids)) if a != b)   # first differing piece
    assert same >= 8
    for run in runs:
        assert np.all(_above_diagonal(run.weights) == 0)
    a, b = runs
    np.testing.assert_allclose(a.weights[..., :same, :same], b.weights[..., :same, :same], atol=1e-5)
    np.testing.assert_allclose(a.hidden[:, :same], b.hidden[:, :same], atol=1e-4)
    np.testing.assert_allclose(a.logits[:same], b.logits[:same], atol=1e-4)


def test_generation_with_and_without_the_cache_is_causal(decoder):
    g = generate(decoder, A[:K], max_new=4)
    assert np.all(_above_diagonal(g.weights) == 0)
    logits_a, w_a = full_recompute(decoder, A)
    logits_b, w_b = full_recompute(decoder, B)
    assert np.all(_above_diagonal(w_a) == 0) and np.all(_above_diagonal(w_b) == 0)
    np.testing.assert_allclose(logits_a[:K], logits_b[:K], atol=1e-6)
    np.testing.assert_allclose(g.logits[:K], logits_a[:K], atol=1e-5)          # the cached prompt pass agrees


def test_what_evaluation_reads_is_causal(decoder):
    w = attention_weights(decoder, [A, B])                                      # head scores: (L, B, H, T, T)
    assert np.all(_above_diagonal(w) == 0)
    loss_a, loss_b = causal_token_losses(decoder, A), causal_token_losses(decoder, B)
    np.testing.assert_allclose(loss_a[:K - 1], loss_b[:K - 1], atol=1e-9)        # predictions of tokens 1..K-1
