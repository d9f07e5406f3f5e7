"""Generation from a causal decoder: the mask, the key/value cache, and the three strategies."""
import numpy as np
import pytest
import torch

from model import checkpoints
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.tasks import generation as g
from model.training.objectives import causal_token_losses, choose_masked

PROMPT = [5, 9, 2, 17]


@pytest.fixture(params=["pre", "post"])
def decoder(request):
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=40, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=48, kind="decoder",
                      norm=request.param)
    return Transformer(cfg).eval()


def test_causal_attention_puts_exactly_zero_weight_on_the_future(decoder):
    _, w = g.full_recompute(decoder, list(range(3, 23)))
    future = np.triu(np.ones(w.shape[-2:], dtype=bool), k=1)
    assert (w[..., future] == 0.0).all()
    assert (w[..., ~future] > 0).all()
    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-5)


def test_generated_attention_is_exactly_zero_above_the_diagonal(decoder):
    r = g.generate(decoder, PROMPT, max_new=12)
    future = np.triu(np.ones(r.weights.shape[-2:], dtype=bool), k=1)
    assert (r.weights[..., future] == 0.0).all()
    np.testing.assert_allclose(r.weights.sum(-1), 1.0, atol=1e-5)


def test_changing_a_future_token_leaves_earlier_outputs_unchanged(decoder):
    a, _ = g.full_recompute(decoder, [5, 9, 2, 17, 30])
    b, _ = g.full_recompute(decoder, [5, 9, 2, 17, 11])
    np.testing.assert_array_equal(a[:4], b[:4])
    assert not np.allclose(a[4], b[4])


@pytest.mark.parametrize("strategy", ["greedy", "top_k"])
def test_kv_cache_matches_full_recompute(decoder, strategy):
    r = g.generate(decoder, PROMPT, max_new=15, strategy=strategy, k=5, temperature=1.3, seed=4)
    logits, weights = g.full_recompute(decoder, r.ids)
    assert r.weights.shape == weights.shape == (2, 4, len(r.ids), len(r.ids))
    assert np.abs(r.logits - logits).max() <= 1e-5
    assert np.abs(r.weights - weights).max() <= 1e-5


def test_top_k_with_k_1_equals_greedy(decoder):
    greedy = g.generate(decoder, PROMPT, max_new=15)
    for seed in range(3):
        assert g.generate(decoder, PROMPT, max_new=15, strategy="top_k", k=1, temperature=2.0, seed=seed).ids \
            == greedy.ids


def test_beam_width_1_equals_greedy(decoder):
    greedy = g.generate(decoder, PROMPT, max_new=15)
    beam = g.beam_search(decoder, PROMPT, width=1, max_new=15)
    assert beam.beams[0]["ids"] == greedy.ids
    assert not [n for n in beam.nodes if n.status == "pruned"]


def test_seeded_sample_is_reproducible_and_seeds_differ(decoder):
    runs = [g.generate(decoder, PROMPT, max_new=20, strategy="top_k", k=8, temperature=1.5, seed=s).ids
            for s in (7, 7, 8, 9)]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2] or runs[0] != runs[3]


def test_top_k_never_picks_outside_the_k_most_likely(decoder):
    r = g.generate(decoder, PROMPT, max_new=20, strategy="top_k", k=3, temperature=3.0, seed=1)
    for s, tok in enumerate(r.new_ids):
        assert tok in r.top_ids[s, :3]


def test_beam_scores_equal_the_sequence_log_probability(decoder):
    beam = g.beam_search(decoder, PROMPT, width=3, max_new=6)
    assert len(beam.beams) == 3
    for h in beam.beams:
        assert h["score"] == pytest.approx(g.sequence_logprob(decoder, h["ids"], len(PROMPT)), abs=1e-4)
    scores = [h["norm_score"] for h in beam.beams]
    assert scores == sorted(scores, reverse=True)


def test_beam_tree_keeps_width_per_step_and_links_parents(decoder):
    width = 3
    beam = g.beam_search(decoder, PROMPT, width=width, max_new=5)
    for step in range(1, 6):
        at = [n for n in beam.nodes if n.step == step]
        assert sum(n.status == "kept" for n in at) == width
        assert len(at) == (1 if step == 1 else width) * width
        assert all(beam.nodes[n.parent].step == step - 1 and beam.nodes[n.parent].status in ("kept", "prompt")
                   for n in at)


def test_beam_as_wide_as_the_vocabulary_finds_the_exact_best_two_tokens():
    torch.manual_seed(1)
    model = Transformer(ModelConfig(vocab_size=12, d_model=16, n_heads=2, n_layers=2, d_ff=32, max_len=16,
                                    kind="decoder")).eval()
    prompt = [3, 7]
    best = max(((a, b) for a in range(12) for b in range(12)),
               key=lambda ab: g.sequence_logprob(model, prompt + list(ab), len(prompt)))
    beam = g.beam_search(model, prompt, width=12, max_new=2)
    assert beam.beams[0]["ids"] == prompt + list(best)


def test_generation_stops_at_eos(decoder):
    first = g.generate(decoder, PROMPT, max_new=10).new_ids
    r = g.generate(decoder, PROMPT, max_new=10, eos_id=first[2])
    assert r.stopped_at_eos and r.new_ids == first[:first.index(first[2]) + 1]


def test_next_token_probs_and_temperature(decoder):
    p1 = g.next_token_probs(decoder, PROMPT)
    assert p1.shape == (40,) and p1.sum() == pytest.approx(1.0)
    hot, cold = g.next_token_probs(decoder, PROMPT, 5.0), g.next_token_probs(decoder, PROMPT, 0.2)
    assert hot.max() < p1.max() < cold.max()
    assert p1.argmax() == hot.argmax() == cold.argmax()


@pytest.mark.parametrize("prompt,max_new,match", [([], 5, "empty"), (PROMPT, 0, "between"),
                                                  (PROMPT, 65, "between"), (list(range(40)), 10, "positions"),
                                                  (list(range(48)), 1, "with 1 new token that is 49")])
def test_bad_requests_get_readable_errors(decoder, prompt, max_new, match):
    with pytest.raises(g.GenerationError, match=match):
        g.generate(decoder, prompt, max_new=max_new)


def test_choose_masked_picks_allowed_positions_only():
    rng = np.random.default_rng(0)
    allowed = np.array([False, True, True, True, True, True, True, False])
    chosen = choose_masked(8, 0.15, rng, allowed)
    assert len(chosen) == 1 and allowed[chosen].all()


def test_causal_token_losses_match_the_full_pass(decoder):
    ids = [5, 9, 2, 17, 30]
    logits, _ = g.full_recompute(decoder, ids)
    logp = torch.log_softmax(torch.from_numpy(logits).double(), -1).numpy()
    expected = [-logp[i, ids[i + 1]] for i in range(4)]
    np.testing.assert_allclose(causal_token_losses(decoder, ids), expected, atol=1e-6)


def test_greedy_generation_is_the_argmax_of_a_full_recompute(decoder):
    """The cached run's greedy tokens, checked against a plain loop that recomputes the whole prefix each step."""
    r = g.generate(decoder, PROMPT, max_new=12)
    ids = list(PROMPT)
    with torch.inference_mode():
        for _ in range(12):
            ids.append(int(decoder(torch.tensor([ids]))[0, -1].argmax()))
    assert r.ids == ids


@pytest.fixture(scope="module")
def general_gpt():
    from model.data import bpe
    model, meta = checkpoints.load("general_gpt")
    return model, meta, bpe.load()


def test_shipped_general_gpt_is_a_bpe_decoder_with_a_context_of_128(general_gpt):
    model, meta, tok = general_gpt
    assert model.config.kind == "decoder" and model.config.max_len == 128 and model.config.vocab_size == len(tok)
    assert meta["text_input"] == "bos" and meta["tokenizer"]["type"] == "bpe"
    assert meta["metrics"]["perplexity_heldout_real"] > 1 and meta["metrics"]["bigram_perplexity_heldout_real"] > 1


@pytest.mark.parametrize("prompt", ["The restaurant refused to serve me a", "床前明月光", "[CLS] 🦝 <mask>"])
def test_shipped_general_gpt_continues_any_prompt_greedily(general_gpt, prompt):
    """English, Chinese, typed special spellings, an emoji: [BOS] and the prompt's pieces, no [UNK]; greedy steps
    are the argmax of a full recompute of the shipped model."""
    from model.data import bpe, text_input
    model, _, tok = general_gpt
    ids = text_input.encode(tok, prompt, "bos").ids
    assert ids[0] == bpe.BOS and min(ids[1:]) >= len(bpe.SPECIALS)
    r = g.generate(model, ids, max_new=10, eos_id=bpe.EOS)
    logits, _ = g.full_recompute(model, r.ids)
    assert r.new_ids == [int(logits[i].argmax()) for i in range(len(ids) - 1, len(r.ids) - 1)]
    assert bpe.UNK not in r.ids and (r.stopped_at_eos or len(r.new_ids) == 10)
    assert tok.decode(r.ids, skip_special=True).startswith(prompt)
