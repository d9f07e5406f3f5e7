"""BERT's masking rule (objectives.bert_mask) and the fixed-size example choice (objectives.choose_masked),
checked against a plain numpy statement of the rule and against counts."""
import numpy as np
import pytest
import torch

from model.data.word_tokenizer import MASK, SPECIALS
from model.training.objectives import bert_mask, choose_masked

VOCAB = 50


def _numpy_rule(ids: np.ndarray, maskable: np.ndarray, rate: float, rng: np.random.Generator, replace: bool):
    """The rule as Devlin et al. state it, drawn in the documented order: choice, roll, random words."""
    chosen = (rng.random(ids.shape) < rate) & maskable
    labels = np.where(chosen, ids, -100)
    roll = rng.random(ids.shape)
    inputs = ids.copy()
    inputs[chosen & ((roll < 0.8) | (not replace))] = MASK
    swap = chosen & (roll >= 0.8) & (roll < 0.9) & replace
    inputs[swap] = rng.integers(len(SPECIALS), VOCAB, size=int(swap.sum()))
    return inputs, labels


@pytest.mark.parametrize("replace", [True, False])
def test_numpy_generator_gives_the_rule_exactly(replace):
    ids = np.random.default_rng(3).integers(0, VOCAB, size=(6, 40))
    maskable = ids >= len(SPECIALS)
    expected = _numpy_rule(ids, maskable, 0.3, np.random.default_rng(11), replace)
    inputs, labels = bert_mask(torch.from_numpy(ids), torch.from_numpy(maskable), 0.3, np.random.default_rng(11),
                               VOCAB, replace)
    np.testing.assert_array_equal(inputs.numpy(), expected[0])
    np.testing.assert_array_equal(labels.numpy(), expected[1])


def test_rate_one_without_replacement_masks_every_maskable_position_and_nothing_else():
    ids = torch.tensor([[2, 10, 11, 3, 0], [2, 12, 0, 0, 0]])
    maskable = ids >= len(SPECIALS)
    inputs, labels = bert_mask(ids, maskable, 1.0, torch.Generator().manual_seed(0), VOCAB, replace=False)
    assert inputs.tolist() == [[2, MASK, MASK, 3, 0], [2, MASK, 0, 0, 0]]
    assert labels.tolist() == [[-100, 10, 11, -100, -100], [-100, 12, -100, -100, -100]]


def test_shares_are_about_rate_then_80_10_10_and_protected_positions_are_never_chosen():
    gen = torch.Generator().manual_seed(5)
    ids = torch.randint(len(SPECIALS), VOCAB, (200, 100), generator=gen)
    maskable = ids % 7 != 0                                   # some ordinary words are protected
    inputs, labels = bert_mask(ids, maskable, 0.15, gen, VOCAB)
    chosen = labels != -100
    assert not chosen[~maskable].any()
    assert (inputs[~chosen] == ids[~chosen]).all() and (labels[chosen] == ids[chosen]).all()
    assert abs(chosen.sum() / maskable.sum() - 0.15) < 0.01
    shown = inputs[chosen]
    as_mask = float((shown == MASK).float().mean())
    kept = float((shown == ids[chosen]).float().mean())
    random_word = 1 - as_mask - kept
    assert abs(as_mask - 0.8) < 0.02 and abs(kept - 0.1 - 0.1 / (VOCAB - len(SPECIALS))) < 0.02
    assert abs(random_word - 0.1) < 0.02
    assert (shown[shown != MASK] >= len(SPECIALS)).all()       # a random word is never a special token


def test_choose_masked_takes_a_fixed_share_of_the_allowed_positions():
    allowed = np.array([False, True, True, True, True, True, True, False])
    chosen = choose_masked(8, 0.15, np.random.default_rng(0), allowed)
    assert len(chosen) == 1 and allowed[chosen].all()          # round(0.15 * 6) = 1
    chosen = choose_masked(40, 0.25, np.random.default_rng(1))
    assert len(chosen) == 10 and chosen == sorted(set(chosen))
    assert choose_masked(3, 0.15, np.random.default_rng(2), np.zeros(3, dtype=bool)) == []
