"""Per-head statistics, automatic labels, rollout and renormalisation on matrices whose answers are
known by construction."""
import numpy as np
import pytest

from model.analysis import attention_views as analysis
from model.analysis import head_stats

TOKENS = ["[CLS]", "the", "restaurant", "refused", "because", "it", "cooks", "[SEP]"]
THREE = ["[CLS]", "the", "restaurant", "refused", "because", "it", "was", "full", ";", "it", "closed", "early", "and",
         "they", "left", "[SEP]"]                            # three pronouns (5, 9, 13), "restaurant" at 2


def one_hot_rows(cols: list[int]) -> np.ndarray:
    """(N, N) where row i puts all its weight on key cols[i]."""
    n = len(cols)
    m = np.zeros((n, n), dtype=np.float32)
    m[np.arange(n), cols] = 1.0
    return m


def stack(*heads) -> np.ndarray:
    """Heads (N, N) -> (1, H, N, N)."""
    return np.stack(heads)[None]


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_entropy_of_uniform_rows_is_log_n_and_of_one_hot_rows_is_zero():
    n = len(TOKENS)
    w = stack(np.full((n, n), 1 / n, np.float32), one_hot_rows(list(range(n))))
    ent = head_stats.entropy(w)
    assert ent[0, 0] == pytest.approx(np.log(n), rel=1e-6)
    assert ent[0, 1] == pytest.approx(0.0, abs=1e-9)
    frac = head_stats.head_stats(w, TOKENS)["entropy_fraction"]
    assert frac[0, 0] == pytest.approx(1.0, rel=1e-6) and frac[0, 1] == pytest.approx(0.0, abs=1e-9)


def test_entropy_fraction_uses_only_the_keys_a_causal_query_may_see():
    n = 6
    causal = np.tril(np.ones((n, n), np.float32))
    w = stack(causal / causal.sum(-1, keepdims=True))
    assert head_stats.max_entropy(w)[0, 0] == pytest.approx(np.mean(np.log(np.arange(1, n + 1))))
    assert head_stats.head_stats(w, ["x"] * n)["entropy_fraction"][0, 0] == pytest.approx(1.0)


def test_mean_distance_self_and_previous_shares_on_known_patterns():
    n = len(TOKENS)
    prev = one_hot_rows([0] + list(range(n - 1)))          # row 0 on itself, others on i-1
    diag = one_hot_rows(list(range(n)))
    stats = head_stats.head_stats(stack(prev, diag), TOKENS)
    assert stats["mean_distance"][0].tolist() == pytest.approx([(n - 1) / n, 0.0])
    assert stats["previous"][0].tolist() == pytest.approx([1.0, 0.0])
    assert stats["self"][0].tolist() == pytest.approx([1 / n, 1.0])


def test_sink_and_cls_sep_shares_count_weight_on_special_tokens():
    n = len(TOKENS)
    sink = one_hot_rows([n - 1] * n)                        # everything on [SEP]
    stats = head_stats.head_stats(stack(sink), TOKENS)
    assert stats["sep"][0, 0] == pytest.approx(1.0) and stats["cls"][0, 0] == 0.0
    assert stats["sink"][0, 0] == pytest.approx(1.0)


def test_coreference_score_is_the_weight_from_the_pronoun_on_one_earlier_content_word():
    n = len(TOKENS)
    cols = list(range(n))
    cols[5] = 2                                             # "it" -> "restaurant"
    near = list(range(n))
    near[5] = 4                                             # "it" -> "because" (function word, adjacent)
    stats = head_stats.head_stats(stack(one_hot_rows(cols), one_hot_rows(near)), TOKENS)
    assert stats["coref"][0].tolist() == pytest.approx([1.0, 0.0])


def test_antecedent_candidates_are_the_earlier_content_words_two_or_more_back():
    tokens = ["[CLS]", "The", " cafe", "chef", ",", "Anna", "said", "it", "was", "good", "."]
    assert head_stats.antecedent_candidates(tokens, 7) == [2, 3, 5]           # "said" is right before "it"
    assert head_stats.antecedent_candidates(tokens, 1) == []


def test_coreference_score_is_nan_without_pronouns():
    w = stack(np.full((3, 3), 1 / 3, np.float32))
    assert np.isnan(head_stats.head_stats(w, ["[CLS]", "cat", "[SEP]"])["coref"]).all()


def _pointing(n: int, pronouns, at: int, rest: np.ndarray) -> np.ndarray:
    """(n, n): the rows of `rest`, except that each pronoun's row puts all its weight on key `at`."""
    m = rest.copy()
    for i in pronouns:
        m[i] = 0
        m[i, at] = 1.0
    return m


def test_labels_follow_the_rules_and_only_those():
    n = len(THREE)
    prev = one_hot_rows([0] + list(range(n - 1)))
    sink = one_hot_rows([0] * n)
    uniform = np.full((n, n), 1 / n, np.float32)
    coref = _pointing(n, (5, 9, 13), 2, one_hot_rows(list(range(n))))
    stats = head_stats.head_stats(stack(prev, sink, uniform, coref), THREE)
    assert head_stats.pronoun_count(THREE) == 3
    labels = head_stats.label_heads(stats, pronouns=3)[0]
    assert labels[0] == ["previous-token"]
    assert labels[1] == ["sink"]
    assert labels[2] == ["broad/positional"]
    assert labels[3] == ["coreference"]
    assert set(head_stats.RULES) == {"previous-token", "sink", "broad/positional", "coreference"}


def test_one_pronoun_is_no_evidence_for_a_coreference_label():
    """The walk's one-pronoun sentence labelled 7 of 16 heads "coref": a head that points its only pronoun at an
    earlier word resolves 100% of one, which says nothing about a habit."""
    n = len(TOKENS)
    coref = _pointing(n, (5,), 2, one_hot_rows(list(range(n))))
    stats = head_stats.head_stats(stack(coref), TOKENS)
    assert stats["coref_resolved"][0, 0] == 1.0 and head_stats.pronoun_count(TOKENS) == 1
    assert head_stats.label_heads(stats, pronouns=head_stats.pronoun_count(TOKENS))[0][0] == []


def test_a_broad_head_is_never_also_a_coreference_head():
    """Uniform rows except the three pronouns', which point at "restaurant": the entropy is the uniform's on every
    row that spreads (one-hot rows count as seeing one key), so the head is broad, and every pronoun is resolved;
    the labels do not contradict."""
    n = len(THREE)
    broad_pointer = _pointing(n, (5, 9, 13), 2, np.full((n, n), 1 / n, np.float32))
    stats = head_stats.head_stats(stack(broad_pointer), THREE)
    assert stats["coref_resolved"][0, 0] == 1.0
    assert stats["entropy_fraction"][0, 0] == pytest.approx(1.0)
    assert head_stats.label_heads(stats, pronouns=3)[0][0] == ["broad/positional"]


def test_labels_sit_on_the_threshold_boundary():
    """Previous-token share exactly at the threshold counts; just below does not."""
    n = 5
    w = np.zeros((2, n, n), np.float32)
    for h, share in enumerate((head_stats.PREVIOUS_MIN, head_stats.PREVIOUS_MIN - 0.01)):
        for i in range(n):
            w[h, i, i] = 1.0
            if i:
                w[h, i, i - 1], w[h, i, i] = share, 1.0 - share
    stats = head_stats.head_stats(w[None], ["a", "b", "c", "d", "e"])
    got = head_stats.label_heads(stats, pronouns=0)[0]
    assert "previous-token" in got[0] and "previous-token" not in got[1]


def test_rollout_of_identity_attention_is_identity_and_rows_sum_to_one():
    n = 5
    rng = np.random.default_rng(0)
    eye = np.broadcast_to(np.eye(n, dtype=np.float32), (3, 2, n, n))
    assert np.allclose(analysis.rollout(eye), np.eye(n))
    w = softmax(rng.standard_normal((3, 2, n, n))).astype(np.float32)
    r = analysis.rollout(w)
    assert r.shape == (3, n, n) and np.allclose(r.sum(-1), 1.0)


def test_rollout_matches_the_product_written_out():
    rng = np.random.default_rng(1)
    w = softmax(rng.standard_normal((2, 3, 4, 4)))
    a = [0.5 * np.eye(4) + 0.5 * w[layer].mean(0) for layer in range(2)]
    a = [m / m.sum(-1, keepdims=True) for m in a]
    assert np.allclose(analysis.rollout(w)[1], a[1] @ a[0])


def test_hiding_special_tokens_renormalises_rows_and_reports_the_removed_share():
    m = np.array([[0.5, 0.25, 0.25], [0.2, 0.6, 0.2], [0.1, 0.1, 0.8]], np.float32)
    keep = analysis.keep_positions(["[CLS]", "a", "b"])
    sub, removed = analysis.renormalised(m, keep)
    assert keep.tolist() == [1, 2]
    assert np.allclose(sub, [[0.75, 0.25], [1 / 9, 8 / 9]])
    assert removed == pytest.approx(1 - (0.8 + 0.9) / 2)


def test_coreference_label_needs_the_pronouns_argmax_on_an_earlier_word_with_a_clear_lead():
    """Heads built by hand at "it" (position 5): one sends it to "restaurant" (fires); one puts 0.35 there but
    its argmax on "because" (the old rule, ≥ 30 % on an earlier content word, fired); one splits 0.45 / 0.45
    between "restaurant" and "refused" (no lead: the head does not pick one); one is uniform."""
    n = len(TOKENS)

    def head(row):
        m = one_hot_rows(list(range(n)))
        m[5] = row
        return m

    resolving = head(np.eye(n)[2])
    weak = head(np.array([0, 0.05, 0.35, 0.05, 0.55, 0, 0, 0]))
    split = head(np.array([0, 0.05, 0.45, 0.45, 0.05, 0, 0, 0]))
    uniform = head(np.full(n, 1 / n))
    stats = head_stats.head_stats(stack(resolving, weak, split, uniform).astype(np.float32), TOKENS)
    assert stats["coref_resolved"][0].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert not any("coreference" in labels for labels in head_stats.label_heads(stats, pronouns=1)[0])
    assert stats["coref"][0, 1] == pytest.approx(0.35)                 # the descriptive score is still there
