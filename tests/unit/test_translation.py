"""Encoder-decoder translation code on a tiny random model: cross-attention shapes and what it reads,
greedy vs beam vs batched vs cached decoding, the out-of-vocabulary message, BLEU, the corpus split."""
import math
import random
import re

import numpy as np
import pytest
import torch

from model.data import translation_corpus as corpus
from model.engine.capture import capturing
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.tasks import translation as translate
from model.training.recipes.translator import tokenizers

SENTENCE = "the teacher likes the restaurant near the station ."
OTHER = "the doctor visits the museum behind the bank ."


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Tiny models run fastest on one thread (and do not fight other jobs for the cores)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def toks():
    return tokenizers()


@pytest.fixture(scope="module")
def tiny(toks):
    src_tok, tgt_tok = toks
    torch.manual_seed(0)
    cfg = ModelConfig(kind="encoder_decoder", vocab_size=len(src_tok), tgt_vocab_size=len(tgt_tok), d_model=32,
                      n_heads=4, n_layers=2, n_dec_layers=3, d_ff=64, max_len=64)
    return Transformer(cfg).eval()


def test_cross_attention_has_target_by_source_shape_per_layer_and_head(tiny, toks):
    target = translate.target_ids(toks[1], "老师喜欢车站附近的餐厅。")
    run = translate.run(tiny, *toks, SENTENCE, target=target)
    S, T = len(SENTENCE.split()), len(target) + 1
    assert run.src_tokens == tuple(SENTENCE.split()) and run.method == "forced" and run.score is None
    assert run.cross_weights.shape == (3, 4, T, S)          # decoder layers, heads, target, source
    assert run.enc_weights.shape == (2, 4, S, S)
    assert run.weights.shape == (3, 4, T, T)
    np.testing.assert_allclose(run.cross_weights.sum(-1), 1.0, atol=1e-5)
    assert np.all(np.triu(run.weights, k=1) == 0)           # masked: no step sees a later token
    assert run.written[-1] == "[EOS]" and len(run.written) == T


def test_cross_attention_keys_are_the_encoder_output_projected(tiny, toks):
    src = torch.tensor([translate.source_ids(toks[0], SENTENCE)])
    with torch.no_grad():
        memory = tiny.encode(src).x
        with capturing("weights", "k"):
            dec = tiny.decode(torch.tensor([[5, 9, 12]]), memory)
    for layer, cap in zip(tiny.decoder.layers, dec.cross_intermediates):
        with torch.no_grad():
            keys = layer.cross_attn.split_heads(layer.cross_attn.w_k(memory))     # (1, H, S, D)
        torch.testing.assert_close(cap.k, keys)


def test_changing_the_source_changes_cross_attention_and_changing_the_target_does_not_touch_the_encoder(tiny, toks):
    tgt_a = translate.target_ids(toks[1], "老师喜欢车站附近的餐厅。")
    tgt_b = translate.target_ids(toks[1], "老师喜欢车站后面的银行。")
    a = translate.run(tiny, *toks, SENTENCE, target=tgt_a)
    other_source = translate.run(tiny, *toks, SENTENCE.replace("station", "market"), target=tgt_a)
    other_target = translate.run(tiny, *toks, SENTENCE, target=tgt_b)
    again = translate.run(tiny, *toks, SENTENCE, target=tgt_a)
    assert np.abs(a.cross_weights - other_source.cross_weights).max() > 1e-4
    np.testing.assert_array_equal(a.cross_weights, again.cross_weights)
    np.testing.assert_array_equal(a.enc_weights, other_target.enc_weights)
    first_diff = next(i for i, (x, y) in enumerate(zip(tgt_a, tgt_b)) if x != y)
    # rows up to the step that first reads a changed token are identical (causal decoder)
    k = first_diff + 1
    np.testing.assert_allclose(a.cross_weights[:, :, :k], other_target.cross_weights[:, :, :k], atol=1e-6)
    assert np.abs(a.cross_weights[:, :, k:] - other_target.cross_weights[:, :, k:]).max() > 1e-5


def test_greedy_equals_beam_of_width_one(tiny, toks):
    for text in (SENTENCE, OTHER, "where is the book ?"):
        src = translate.source_ids(toks[0], text)
        steps = translate.greedy(tiny, src, max_new=12)
        beam = translate.beam_search(tiny, src, width=1, max_new=12)
        assert len(beam) == 1 and beam[0].ids == steps.ids
        assert translate.greedy(tiny, src, max_new=12, capture=False).ids == steps.ids


def test_beam_returns_width_hypotheses_best_first(tiny, toks):
    hyps = translate.beam_search(tiny, translate.source_ids(toks[0], SENTENCE), width=3, max_new=12)
    norm = [h.score / (len(h.ids) + 1) for h in hyps]
    assert 1 <= len(hyps) <= 3 and norm == sorted(norm, reverse=True)


def test_batched_greedy_matches_one_at_a_time(tiny, toks):
    texts = [SENTENCE, "where is the book ?", OTHER]
    srcs = [translate.source_ids(toks[0], t) for t in texts]
    assert translate.greedy_batch(tiny, srcs, max_new=10) == [translate.greedy(tiny, s, max_new=10).ids for s in srcs]


def test_cached_step_by_step_attention_equals_teacher_forcing_on_the_same_output(tiny, toks):
    src = translate.source_ids(toks[0], SENTENCE)
    steps = translate.greedy(tiny, src, max_new=8)
    forced = translate.teacher_forcing(tiny, src, steps.ids)
    n = len(steps.cross)
    np.testing.assert_allclose(steps.cross, forced["cross_weights"].transpose(2, 0, 1, 3)[:n], atol=1e-5)
    for t, row in enumerate(steps.self_rows):
        np.testing.assert_allclose(row, forced["weights"][:, :, t, :t + 1], atol=1e-5)


def test_unknown_words_get_a_message_naming_them_and_what_can_be_translated(toks):
    with pytest.raises(translate.SourceError) as e:
        translate.source_ids(toks[0], "the teacher likes the <b>spaceship</b> near Mars")
    msg = str(e.value)
    assert "“spaceship”" in msg and "“mars”" in msg and "“teacher”" not in msg
    assert "restaurant" in msg and "Known words" in msg
    with pytest.raises(translate.SourceError, match="Type an English sentence"):
        translate.source_ids(toks[0], "   ")
    with pytest.raises(translate.SourceError, match="at most"):
        translate.source_ids(toks[0], "the teacher " * 30)


def test_bleu_on_characters_matches_hand_computed_values():
    assert translate.bleu(["老师喜欢餐厅。"], ["老师喜欢餐厅。"]) == pytest.approx(1.0)
    # ABCDE vs ABCDF: p1..p4 = 4/5, 3/4, 2/3, 1/2, no brevity penalty
    assert translate.bleu(["ABCDE"], ["ABCDF"]) == pytest.approx((4 / 5 * 3 / 4 * 2 / 3 * 1 / 2) ** 0.25)
    # a correct but short hypothesis: all precisions 1, brevity penalty exp(1 - 6/4)
    assert translate.bleu(["ABCD"], ["ABCDEF"]) == pytest.approx(math.exp(-0.5))
    assert translate.bleu(["XYZW"], ["ABCD"]) == 0.0
    assert translate.bleu(["A B C D E"], ["ABCDF"]) == translate.bleu(["ABCDE"], ["ABCDF"])   # spaces ignored


def test_corpus_is_deterministic_and_heldout_never_appears_in_training():
    held = corpus.heldout_pairs()
    assert [p.en for p in held] == [p.en for p in corpus.heldout_pairs()]
    assert len({p.en for p in held}) == len(held)
    rng = random.Random(0)
    train = [corpus.train_pair(rng) for _ in range(3000)]
    assert not any(p.template in corpus.HELDOUT_TEMPLATES or corpus.is_heldout_combo(p) for p in train)
    assert not {p.en for p in train} & {p.en for p in held}
    assert all(p.template in corpus.HELDOUT_TEMPLATES or corpus.is_heldout_combo(p) for p in held)


def test_corpus_moves_phrases_and_time_before_what_they_describe():
    rng = random.Random(1)
    seen_pp = seen_time = 0
    for _ in range(400):
        p = corpus.train_pair(rng)
        if p.template[0] != "svo":
            continue
        for noun, prep, place in re.findall(r"the (\w+) (near|behind) the (\w+)", p.en):
            table = {**corpus.PEOPLE, **corpus.THINGS, **{k: v[1] for k, v in corpus.PLACES.items()}}
            assert f"{corpus.PLACES[place][1]}{corpus.PREPS[prep]}的{table[noun]}" in p.zh
            seen_pp += 1
        if p.en.endswith("every morning .") and " the " in p.en:
            assert "每天早上" in p.zh and p.zh.index("每天早上") < len(p.zh) // 2 + 2
            seen_time += 1
    assert seen_pp > 10 and seen_time > 3


def test_every_heldout_word_is_in_the_vocabularies(toks):
    src_tok, tgt_tok = toks
    for p in corpus.heldout_pairs():
        assert not any(src_tok.encode(p.en).unknown) and not any(tgt_tok.encode(p.zh).unknown)
