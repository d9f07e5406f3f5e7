"""The decoder's behaviour measures (model/analysis/decoder_behaviour.py): the greedy-loop detector on constructed
sequences, the choice of copy passages, and the everyday prompts file."""
import pytest

from model.analysis import decoder_behaviour as db
from model.data.bpe import BOS, EOS


@pytest.mark.parametrize("ids, loops", [
    ([1, 2, 3, 4] * 3, True),                          # one 4-gram three times
    ([1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8], False),     # twice only
    ([9] * 6, True),                                   # 9 9 9 9 at 0, 1 and 2: overlapping occurrences count
    ([9] * 5, False),
    ([5, 1, 2, 3, 4, 6, 1, 2, 3, 4, 7, 1, 2, 3, 4], True),
    ([1, 2, 3, 4, 5, 1, 2, 3, 5, 1, 2, 3], False),     # 1 2 3 thrice, but no 4-gram
    ([], False), ([1, 2, 3], False),
])
def test_a_continuation_loops_when_a_4gram_occurs_three_times(ids, loops):
    assert db.repeats_ngram(ids) is loops


def test_copy_passages_are_whole_english_documents_of_20_to_60_ids_that_fit_twice():
    doc = lambda n: [BOS, *range(100, 100 + n), EOS]                      # noqa: E731
    seqs = [doc(19), doc(20), doc(25), doc(60), doc(61), doc(30), doc(40)[:30]]
    english = [True, True, False, True, True, True, True]
    assert [len(p) for p in db.copy_passages(seqs, english, 128)] == [20, 60, 30]
    assert [len(p) for p in db.copy_passages(seqs, english, 100)] == [20, 30]  # 1 + 2·60 ids do not fit 100


def test_the_everyday_prompts_are_twenty_different_openings():
    prompts = db.everyday_prompts()
    assert len(prompts) == 20 == len(set(prompts))
    assert all(p.strip() == p and 3 <= len(p.split()) <= 10 for p in prompts)
