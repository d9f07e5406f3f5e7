"""Sequence-level unlikelihood training (model/training/unlikelihood.py): which continued ids it flags, the
document openings it continues, its batched greedy decoding against the app's generator, and the direction
of one step of it. The stage of general_gpt that uses it: tests/unit/test_general_recipes.py."""
import numpy as np
import pytest
import torch

from model.data.bpe import BOS, EOS
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.tasks import generation
from model.training import unlikelihood


def tiny_decoder(seed: int = 0) -> Transformer:
    torch.manual_seed(seed)
    return Transformer(ModelConfig(vocab_size=40, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=48,
                                   pos_encoding="learned", norm="pre", kind="decoder", activation="gelu")).eval()


def test_an_ngram_seen_before_flags_its_ids_and_only_from_the_start_on():
    ids = torch.tensor([[11, 12, 13, 14, 15, 11, 12, 13, 14, 19]])
    assert unlikelihood.repeated_ngram_mask(ids, 0)[0].tolist() == [False] * 5 + [True] * 4 + [False]
    # the repeat starts at 5: counted from 5 on, not from 6 on (the 4-gram at 6 is new)
    assert unlikelihood.repeated_ngram_mask(ids, 5)[0].tolist() == [False] * 5 + [True] * 4 + [False]
    assert not unlikelihood.repeated_ngram_mask(ids, 6).any()
    # "a man who is a man who is a man": every id from the second "a" on lies in a 4-gram seen before
    loop = torch.tensor([[20, 21, 22, 23, 20, 21, 22, 23, 20, 21]])
    assert unlikelihood.repeated_ngram_mask(loop, 2)[0].tolist() == [False] * 4 + [True] * 6
    # a 3-gram repeated is not a 4-gram repeated
    assert not unlikelihood.repeated_ngram_mask(torch.tensor([[1, 2, 3, 9, 1, 2, 3, 8]]), 0).any()


def test_document_openings_start_at_bos_and_come_from_documents_long_enough():
    stream = np.array([BOS, 30, 31, EOS, BOS, 40, 41, 42, 43, 44, EOS, BOS, 50, 51])   # the last doc has no end
    batch = unlikelihood.document_prefixes(stream, 4, 6, 10, np.random.default_rng(0))
    assert batch.new == 10 and batch.ids.dtype == torch.int64
    assert batch.ids.tolist() == [[BOS, 40, 41, 42]] * 6


def test_batched_greedy_decoding_equals_the_generator_of_the_app_row_by_row():
    model = tiny_decoder()
    prefixes = torch.tensor([[BOS, 7, 8, 9], [BOS, 30, 2, 2], [BOS, 5, 5, 5]])
    extended = unlikelihood.greedy_extend(model, prefixes, 12)
    assert extended.shape == (3, 16) and torch.equal(extended[:, :4], prefixes)
    for row, out in zip(prefixes.tolist(), extended.tolist()):
        assert out[4:] == generation.generate(model, row, 12, "greedy").new_ids


def test_a_step_of_unlikelihood_lowers_the_probability_of_the_ids_that_repeat():
    model = tiny_decoder(seed=3)
    batch = unlikelihood.Prefixes(torch.tensor([[BOS, 7, 8, 9], [BOS, 10, 11, 12]]), 40)
    ids = unlikelihood.greedy_extend(model, batch.ids, batch.new)
    flagged = unlikelihood.repeated_ngram_mask(ids, 4)[:, 4:]
    assert flagged.any()                                       # an untrained decoder loops at once

    def flagged_probability() -> float:
        with torch.no_grad():
            p = torch.softmax(model(ids[:, :-1])[:, 3:], -1).gather(-1, ids[:, 4:, None])[..., 0]
        return float(p[flagged].mean())

    before = flagged_probability()
    half, _ = unlikelihood.sequence_loss(model.train(), unlikelihood.Prefixes(batch.ids, batch.new, 0.5))
    loss, n = unlikelihood.sequence_loss(model.train(), batch)
    assert float(half.detach()) == pytest.approx(float(loss.detach()) / 2, rel=1e-5)    # the weight scales it
    assert n == 2 * 40 and float(loss.detach()) > 0
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.5 * p.grad
    assert flagged_probability() < before


def test_only_the_ids_before_the_first_eos_are_charged(monkeypatch):
    model = tiny_decoder()
    opening = [BOS, 7, 8, 9]
    looped_then_ended = opening + [20, 21, 22, 23, 20, 21, 22, 23, EOS, 30]           # a repeat, then [EOS]
    ended_then_looped = opening + [20, EOS, 22, 23, 24, 25, 22, 23, 24, 25]           # the repeat after [EOS]
    charged = []
    for written in (looped_then_ended, ended_then_looped):
        monkeypatch.setattr(unlikelihood, "greedy_extend", lambda m, ids, new, w=written: torch.tensor([w]))
        loss, n = unlikelihood.sequence_loss(model, unlikelihood.Prefixes(torch.tensor([opening]), 10))
        charged.append(float(loss.detach()))
        assert n == 10
    assert charged[0] > 0 and charged[1] == 0
    assert unlikelihood.repeated_ngram_mask(torch.tensor([ended_then_looped]), 4)[0, -4:].all()     # a repeat still
