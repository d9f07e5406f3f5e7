"""The interpolated modified Kneser–Ney model (model/data/kneser_ney.py): counts, discounts and one probability
worked out by hand on a tiny corpus, probabilities that sum to 1, the continuation counts that make Kneser–Ney
what it is, and the disk cache."""
from fractions import Fraction

import numpy as np
import pytest

from model.data.kneser_ney import KneserNey, cached, discounts

BOS, EOS, A, B, C, D = range(6)            # D never occurs
V = 6
# <s> b a b a </s> / <s> b b b b b </s> / <s> b c c b c </s>
TINY = [[BOS, B, A, B, A, EOS], [BOS, B, B, B, B, B, EOS], [BOS, B, C, C, B, C, EOS]]


def count_of(model: KneserNey, order: int, gram: tuple[int, ...]) -> int:
    level = model.levels[order - 1]
    key = 0
    for g in gram:
        key = key * V + g
    at = np.searchsorted(level.keys, key)
    return int(level.counts[at]) if at < len(level.keys) and level.keys[at] == key else 0


def test_discounts_follow_chen_and_goodman_from_the_count_of_counts():
    # n1 = 4, n2 = 2, n3 = 1, n4 = 1: Y = 4 / (4 + 2·2) = 1/2
    # D1 = 1 − 2·Y·n2/n1 = 1 − 2·(1/2)·(2/4) = 1/2;  D2 = 2 − 3·Y·n3/n2 = 2 − 3·(1/2)·(1/2) = 5/4
    # D3+ = 3 − 4·Y·n4/n3 = 3 − 4·(1/2)·1 = 1
    assert discounts(np.array([1, 1, 1, 1, 2, 2, 3, 4, 9])) == pytest.approx([0.5, 1.25, 1.0])


def test_discounts_the_count_of_counts_cannot_give_are_one_half_and_no_id_gets_probability_zero():
    assert discounts(np.array([2, 2, 5, 10])).tolist() == [0.5, 0.5, 0.5]           # n1 = 0: formula undefined
    # n = 6, 2, 1, 1 but n3/n2 so large that D2 = 2 − 3·(3/5)·(4/2) < 0: only D2 falls back
    assert discounts(np.array([1] * 6 + [2] * 2 + [3] * 4 + [4])) == pytest.approx([3 / 5, 0.5, 3 - 4 * 0.6 / 4])
    model = KneserNey.fit([[BOS, A, B, EOS]] * 3 + [[BOS, C, EOS]] * 2, 3, V, bos=BOS)   # every count ≥ 2
    for context in ([], [BOS], [BOS, A], [A, B], [D, D]):
        assert (model.distribution(context) > 0).all()


def test_counts_discounts_and_a_probability_worked_out_by_hand():
    model = KneserNey.fit(TINY, 2, V, bos=BOS)
    # bigrams (the highest order: raw counts), 17 in all:
    # <s> b 3, b a 2, a b 1, a </s> 1, b b 4, b </s> 1, b c 2, c c 1, c b 1, c </s> 1
    assert [count_of(model, 2, g) for g in [(BOS, B), (B, A), (A, B), (B, B), (B, C), (C, B), (A, C)]] == \
        [3, 2, 1, 4, 2, 1, 0]
    # count-of-counts n1 = 6, n2 = 2, n3 = 1, n4 = 1: Y = 6/10 = 3/5
    # D1 = 1 − 2·(3/5)·(2/6) = 3/5; D2 = 2 − 3·(3/5)·(1/2) = 11/10; D3+ = 3 − 4·(3/5)·(1/1) = 3/5
    assert model.levels[1].discounts == pytest.approx([3 / 5, 11 / 10, 3 / 5])
    # unigrams are continuation counts N1+(• w), the number of distinct ids seen before w:
    # b after <s>, a, b, c: 4; a after b: 1; </s> after a, b, c: 3; c after b, c: 2; <s> and d: 0
    assert [count_of(model, 1, (w,)) for w in (BOS, EOS, A, B, C, D)] == [0, 3, 1, 4, 2, 0]
    # count-of-counts 1, 1, 1, 1: Y = 1/3; D1 = 1 − 2/3 = 1/3; D2 = 2 − 3·(1/3) = 1; D3+ = 3 − 4·(1/3) = 5/3
    assert model.levels[0].discounts == pytest.approx([1 / 3, 1, 5 / 3])
    # P1(w) = (N1+(•w) − D) / 10 + (mass passed down 1/3 + 1 + 5/3 + 5/3 = 14/3) / 10 · 1/6
    p1 = {A: Fraction(2, 3) / 10, B: Fraction(7, 3) / 10, C: Fraction(1) / 10, EOS: Fraction(4, 3) / 10,
          BOS: Fraction(0), D: Fraction(0)}
    p1 = {w: p + Fraction(14, 3) / 10 / 6 for w, p in p1.items()}
    assert p1[A] == Fraction(13, 90) and sum(p1.values()) == 1
    # after b (c(b•) = 9): a 2, b 4, </s> 1, c 2; passed down D2 + D3+ + D1 + D2 = 17/5, so γ(b) = 17/45
    # P(a | b) = (2 − 11/10)/9 + (17/45)·(13/90) = 313/2025;  P(d | b) = (17/45)·(7/90) = 119/4050
    p_a_after_b = (2 - Fraction(11, 10)) / 9 + Fraction(17, 45) * p1[A]
    assert p_a_after_b == Fraction(313, 2025)
    assert model.prob(np.array([[B], [B], [D]]), [A, D, A]) == pytest.approx(
        [313 / 2025, 119 / 4050, 13 / 90], abs=1e-15)              # an unseen context falls back to P1
    assert model.perplexity([[B, A]]) == pytest.approx(2025 / 313)


def test_lower_orders_keep_raw_counts_after_bos_and_continuation_counts_elsewhere():
    model = KneserNey.fit(TINY, 3, V, bos=BOS)
    # "<s> b" starts 3 texts: nothing can precede <s>, so its raw count 3 stays (a continuation count would be 0)
    assert count_of(model, 2, (BOS, B)) == 3
    # "b b" is preceded by <s> (<s> b b) and by b (b b b, three times): 2 distinct ids, not its raw count 4
    assert count_of(model, 2, (B, B)) == 2 and count_of(KneserNey.fit(TINY, 2, V, bos=BOS), 2, (B, B)) == 4
    assert count_of(model, 1, (BOS,)) == 0                  # <s> is never predicted, so it gets no unigram mass


def test_a_word_seen_after_many_contexts_beats_one_seen_often_after_one():
    """The San Francisco example (Chen & Goodman 1998, §2.7): 'francisco' is frequent but only after 'san';
    'glasses' is rarer but follows many words. After a context where neither was seen, KN prefers 'glasses'."""
    san, francisco, glasses, the = 2, 3, 4, 5
    words = [6, 7, 8, 9, 10]
    seqs = [[BOS, san, francisco, EOS]] * 10 + [[BOS, w, glasses, EOS] for w in words] + [[BOS, the, 11, EOS]]
    model = KneserNey.fit(seqs, 2, 12, bos=BOS)
    assert sum(s.count(francisco) for s in seqs) > sum(s.count(glasses) for s in seqs)
    p = model.distribution([the])                 # unigram continuation counts: glasses 5, francisco 1
    assert p[glasses] > 2 * p[francisco]
    assert model.distribution([san])[francisco] > 0.8


@pytest.mark.parametrize("order", [2, 3, 4])
def test_every_distribution_sums_to_one_for_seen_unseen_and_empty_contexts(order):
    rng = np.random.default_rng(order)
    seqs = [[BOS, *rng.integers(2, 40, rng.integers(1, 15)), EOS] for _ in range(300)]
    model = KneserNey.fit(seqs, order, 50, bos=BOS)
    contexts = [[], [BOS], seqs[0][:2], seqs[1][:4], seqs[2][1:5], [45, 46, 47], [3, 45], [BOS, 45], [-1, 7],
                [7, -1]]
    for ctx in contexts:
        p = model.distribution(ctx)
        assert abs(p.sum() - 1) < 1e-9 and (p > 0).all(), ctx
        rows = np.tile(ctx, (50, 1)) if ctx else np.zeros((50, 0), np.int64)
        assert p == pytest.approx(model.prob(rows, np.arange(50)), abs=1e-15)


@pytest.mark.parametrize("order", [2, 3, 4])
def test_an_open_slot_in_the_history_gives_the_same_probabilities_as_each_history_written_out(order):
    rng = np.random.default_rng(10 + order)
    seqs = [[BOS, *rng.integers(2, 20, rng.integers(1, 12)), EOS] for _ in range(200)]
    model = KneserNey.fit(seqs, order, 24, bos=BOS)
    for before, after, nxt in [([], [], 5), ([BOS], [], 3), ([7], [], EOS), ([], [8], 9), ([4, 5], [], 6),
                               ([-1], [3], 4), ([3], [-1], 4), ([2], [3, 4], 5), ([], [22], 23)]:
        written = np.array([before + [w] + after for w in range(24)])
        assert model.prob_for_each(before, after, nxt) == pytest.approx(
            model.prob(written, np.full(24, nxt)), abs=1e-15)


def test_perplexity_scores_every_id_after_the_first_with_its_own_history():
    rng = np.random.default_rng(0)
    seqs = [[BOS, *rng.integers(2, 30, rng.integers(1, 10)), EOS] for _ in range(100)]
    model = KneserNey.fit(seqs, 3, 32, bos=BOS)
    held = [[BOS, 3, 4, 5, 6, EOS], [BOS, 7, EOS], [BOS, 31, 30, 3, EOS]]
    logs = [np.log(model.distribution(s[max(0, t - 2):t])[s[t]]) for s in held for t in range(1, len(s))]
    assert model.perplexity(held) == pytest.approx(np.exp(-np.mean(logs)), rel=1e-12)


def test_ids_outside_the_vocabulary_and_orders_too_large_for_int64_keys_are_refused():
    with pytest.raises(ValueError, match="ids must lie in 0..5"):
        KneserNey.fit([[0, 6]], 2, V)
    with pytest.raises(ValueError, match="does not fit int64 keys"):
        KneserNey.fit([[0, 1]], 5, 8192)


def test_the_cache_stores_the_counts_once_and_gives_the_same_model(tmp_path):
    ids = np.array([BOS, B, A, B, A, EOS, BOS, B, C, EOS])
    offsets = np.array([0, 6, 10])
    first = cached(ids, offsets, 3, V, BOS, tmp_path)
    files = list(tmp_path.glob("kneser_ney-3-*.npz"))
    assert len(files) == 1
    second = cached(ids, offsets, 3, V, BOS, tmp_path)
    assert list(tmp_path.glob("*.npz")) == files
    assert second.distribution([B, A]) == pytest.approx(first.distribution([B, A]), abs=0)
    cached(ids, offsets, 2, V, BOS, tmp_path)
    assert len(list(tmp_path.glob("*.npz"))) == 2                 # another order is another file
