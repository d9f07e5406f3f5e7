"""The count baselines beside the general models (model/analysis/lm_baselines.py): what the two-sided Kneser–Ney
fill reads around a masked slot, that it uses both sides, and the perplexity keys."""
import numpy as np
import pytest

from model.analysis import lm_baselines as lb
from model.data.bpe import BOS, CLS, EOS, MASK, SEP
from model.data.kneser_ney import KneserNey

THE, CAT, DOG, SAT, RAN, A = range(10, 16)
VOCAB = 20


@pytest.mark.parametrize("row, i, slot", [
    ([CLS, 30, 31, MASK, 32, 33, SEP], 3, (30, 31, 32, 33)),
    ([CLS, MASK, 31, 32], 1, (-1, BOS, 31, 32)),                 # a text's first id: [BOS] alone on the left
    ([CLS, 30, SEP, MASK, 31, 32], 3, (-1, BOS, 31, 32)),        # after [SEP] a new document starts
    ([CLS, 30, SEP, 31, MASK, 32], 4, (BOS, 31, 32, -1)),
    ([CLS, 30, 31, MASK, SEP, 32], 3, (30, 31, EOS, -1)),        # nothing is scored past the document's end
    ([CLS, MASK, MASK, 30, MASK, 31], 2, (BOS, -1, 30, -1)),     # masked neighbours are unknown
    ([CLS, 30, 31, MASK], 3, (30, 31, -1, -1)),                  # a cut text: nothing on the right
])
def test_the_fill_reads_two_ids_each_side_within_one_document(row, i, slot):
    assert lb._slot(lb._as_kn_ids(np.array(row)), i) == slot


def toy_model() -> KneserNey:
    # after "the", dog is twice as frequent as cat; only cat is followed by "sat"
    texts = [[THE, CAT, SAT]] * 5 + [[THE, DOG, RAN]] * 10 + [[A, CAT, RAN]] * 2
    return KneserNey.fit([[BOS, *t, EOS] for t in texts], 3, VOCAB, bos=BOS)


def test_the_fill_uses_the_right_side_as_well_as_the_left():
    kn = toy_model()
    assert lb.fill_choice(kn, (BOS, THE, -1, -1)) == DOG                 # left only: the more frequent
    assert lb.fill_choice(kn, (BOS, THE, SAT, EOS)) == CAT               # "sat" on the right decides
    inputs = np.array([[CLS, THE, MASK, SAT, SEP], [CLS, THE, MASK, RAN, SEP]])
    labels = np.full(inputs.shape, -100)
    labels[0, 2], labels[1, 2] = CAT, CAT
    assert lb.fill_hits(kn, inputs, labels) == (1, 2)
    assert lb.fill_accuracy(kn, [(inputs, labels)]) == 0.5


def test_the_fill_score_is_the_product_of_its_three_factors():
    kn = toy_model()
    w = np.arange(VOCAB)
    expected = (np.log(kn.distribution([BOS, THE])) + np.log(kn.prob(np.stack([np.full(VOCAB, THE), w], 1),
                                                                      np.full(VOCAB, SAT)))
                + np.log(kn.prob(np.stack([w, np.full(VOCAB, SAT)], 1), np.full(VOCAB, EOS))))
    assert lb.fill_scores(kn, (BOS, THE, SAT, EOS)) == pytest.approx(expected, abs=1e-12)


def test_documents_are_framed_with_bos_and_eos():
    ids, offsets = lb.with_bos_eos(np.array([30, 31, 32]), np.array([0, 2, 3]))
    assert ids.tolist() == [BOS, 30, 31, EOS, BOS, 32, EOS] and offsets.tolist() == [0, 4, 7]


def test_perplexity_keys_compare_the_model_with_kneser_ney_overall_and_per_source(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(tmp_path))
    rng = np.random.default_rng(0)
    docs = [rng.integers(10, 40, rng.integers(2, 9)) for _ in range(200)]
    ids, offsets = np.concatenate(docs), np.r_[0, np.cumsum([len(d) for d in docs])]
    held = [[BOS, 11, 12, 13, EOS], [BOS, 20, 21, EOS], [BOS, 30, 39, 38, 37, EOS]]
    keys = lb.perplexity_keys(ids, offsets, 40, held, ["wordnet", "bible", "bible"], 50.0,
                              lambda picked: 10.0 * len(picked))
    kn4 = KneserNey.fit([[BOS, *d, EOS] for d in docs], 4, 40, bos=BOS)
    assert keys["kn4_perplexity_heldout_real"] == pytest.approx(kn4.perplexity(held), abs=1e-3)
    assert keys["kn3_perplexity_heldout_real"] > keys["kn4_perplexity_heldout_real"] * 0.5
    assert keys["perplexity_ratio_vs_kn4"] == pytest.approx(50.0 / kn4.perplexity(held), abs=1e-4)
    assert keys["perplexity_by_source"] == {"bible": 20.0, "wordnet": 10.0}
    assert keys["kn4_perplexity_by_source"]["bible"] == pytest.approx(kn4.perplexity(held[1:]), abs=1e-3)
    assert keys["perplexity_ratio_vs_kn4_by_source"]["wordnet"] == pytest.approx(10.0 / kn4.perplexity(held[:1]),
                                                                                abs=1e-4)
    assert len(list(tmp_path.glob("kneser_ney-*.npz"))) == 2                # KN3 and KN4 counts cached
