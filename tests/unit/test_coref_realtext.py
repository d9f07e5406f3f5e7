"""The real-text pronoun set (model/data/coref_realtext.jsonl) and its evaluation (model/tasks/coref_realtext.py):
the file validates and meets its counts, its gender and number labels agree with a word list written here, the
baselines and the head choice give hand-computed answers, Wilson intervals match published values, and a bad
line is refused with a message that names it."""
import json
from collections import Counter

import numpy as np
import pytest

from model import checkpoints
from model.data import bpe, text_input
from model.data.word_tokenizer import split_words
from model.tasks import coref_realtext as rt
from model.tasks.coreference import encode

FEMALE = {"anna", "maria", "waitress", "grandmother", "sophie", "laura", "priya", "queen", "emma", "grace", "helen",
          "aunt", "julia", "girl", "fatima", "rosa", "sister", "nora", "bride", "aisha", "woman", "sarah", "olga",
          "mother", "lucy", "ingrid", "mei", "princess", "kate", "niece"}
MALE = {"peter", "tom", "man", "uncle", "david", "james", "omar", "king", "carlos", "ben", "mark", "brother", "kenji",
        "boy", "paul", "ivan", "father", "george", "daniel", "policeman", "luis", "grandfather", "hans", "son",
        "nephew", "ahmed", "jack", "prince", "ravi"}
PRONOUN_GENDER = {"he": MALE, "him": MALE, "his": MALE, "himself": MALE,
                  "she": FEMALE, "her": FEMALE, "hers": FEMALE, "herself": FEMALE}
PLURAL_PRONOUNS = {"they", "them", "their", "themselves"}
SINGULAR_PRONOUNS = {"it", "its", "itself"}


def is_plural(noun: str) -> bool:
    """Plural nouns of the set: an -s ending except 'bus', and 'children' and 'mice'."""
    return noun in ("children", "mice") or (noun.endswith("s") and noun != "bus")


@pytest.fixture(scope="module")
def sentences():
    return rt.load()


def words_of(s):
    return split_words(s.text)


def test_set_has_at_least_220_sentences_and_40_per_cue(sentences):
    assert len(sentences) >= 220
    assert len({s.id for s in sentences}) == len(sentences)
    counts = Counter(s.cue for s in sentences)
    assert set(counts) == set(rt.CUES) and min(counts.values()) >= 40
    assert counts["winograd"] >= 50
    dev = sum(s.split == "dev" for s in sentences) / len(sentences)
    assert 0.3 <= dev <= 0.5


def test_winograd_pairs_are_complete_in_one_split_and_flip_the_antecedent(sentences):
    pairs: dict[str, list] = {}
    for s in sentences:
        assert (s.pair is not None) == (s.cue == "winograd"), s.id
        if s.pair:
            pairs.setdefault(s.pair, []).append(s)
    assert len(pairs) >= 25
    assert all(len(v) == 2 for v in pairs.values())
    for pair, (a, b) in pairs.items():
        assert a.split == b.split, pair
        wa, wb = words_of(a), words_of(b)
        assert [wa[c] for c in a.candidates] == [wb[c] for c in b.candidates], pair
        assert wa[a.pronoun] == wb[b.pronoun], pair
        assert wa[a.antecedent] != wb[b.antecedent], pair


def test_gender_sentences_have_exactly_one_candidate_of_the_pronouns_gender(sentences):
    for s in (s for s in sentences if s.cue == "gender"):
        w = words_of(s)
        same = PRONOUN_GENDER[w[s.pronoun]]
        matching = [c for c in s.candidates if w[c] in same]
        assert matching == [s.antecedent], (s.id, s.text)
        assert all(w[c] in FEMALE | MALE for c in s.candidates), (s.id, s.text)


def test_number_sentences_have_exactly_one_candidate_of_the_pronouns_number(sentences):
    for s in (s for s in sentences if s.cue == "number"):
        w = words_of(s)
        plural = w[s.pronoun] in PLURAL_PRONOUNS
        assert plural or w[s.pronoun] in SINGULAR_PRONOUNS, (s.id, s.text)
        assert [c for c in s.candidates if is_plural(w[c]) == plural] == [s.antecedent], (s.id, s.text)


def test_structure_and_winograd_candidates_agree_with_the_pronoun(sentences):
    """Where structure or world knowledge decides, gender and number must not."""
    for s in (s for s in sentences if s.cue in ("structure", "winograd")):
        w = words_of(s)
        nouns = [w[c].removesuffix("'s") for c in s.candidates]
        if w[s.pronoun] in PRONOUN_GENDER:
            assert all(n in PRONOUN_GENDER[w[s.pronoun]] for n in nouns), (s.id, s.text)
        else:
            plural = w[s.pronoun] in PLURAL_PRONOUNS
            assert all(is_plural(n) == plural and n not in FEMALE | MALE for n in nouns), (s.id, s.text)


def test_neither_baseline_reaches_80_percent(sentences):
    for split in rt.SPLITS:
        part = [s for s in sentences if s.split == split]
        assert rt.baseline_hits(part, rt.first_noun).mean() < 0.65
        assert rt.baseline_hits(part, rt.nearest_noun).mean() < 0.65


def test_shipped_bpe_reads_the_same_words_as_split_words(sentences):
    tok = bpe.load()
    for s in sentences:
        assert len(encode(tok, s.text).words) == len(words_of(s)) + 2, s.text


def line(text, pronoun, antecedent, candidates, **kw):
    d = dict(id="x", split="test", text=text, pronoun=pronoun, antecedent=antecedent, candidates=candidates,
             cue="gender", pair=None)
    return json.dumps({**d, **kw})


# hand-worked: word indices of split_words, and what each baseline picks
TINY = [
    # anna0 called1 peter2 because3 she4 was5 late6 .7 -> first: anna (right), nearest: peter (wrong)
    line("Anna called Peter because she was late.", 4, 0, [0, 2]),
    # before0 she1 left2 ,3 anna4 called5 maria6 .7 -> nothing before 'she': both pick anna (right)
    line("Before she left, Anna called Maria.", 1, 4, [4, 6]),
    # kate0 met1 tom2 ,3 and4 he5 met6 sam7 .8 -> first: kate (wrong), nearest before: tom (right)
    line("Kate met Tom, and he met Sam.", 5, 2, [0, 2, 7]),
    # the0 cups1 fell2 off3 the4 shelf5 because6 it7 tilted8 .9 -> first: cups (wrong), nearest: shelf (right)
    line("The cups fell off the shelf because it tilted.", 7, 5, [1, 5], cue="number"),
]


def test_baselines_on_hand_worked_sentences():
    tiny = [rt.parse_line(t) for t in TINY]
    assert [rt.first_noun(s) for s in tiny] == [0, 4, 0, 1]
    assert [rt.nearest_noun(s) for s in tiny] == [2, 4, 2, 5]
    assert rt.baseline_hits(tiny, rt.first_noun).tolist() == [True, True, False, False]
    assert rt.baseline_hits(tiny, rt.nearest_noun).tolist() == [False, True, True, True]


def test_resolves_takes_the_argmax_over_candidates_only():
    s = rt.parse_line(TINY[2])                    # pronoun 'he' = word 5, candidates 0, 2, 7, antecedent 2
    W = len(split_words(s.text)) + 2              # with [CLS] and [SEP]; word i is position i + 1
    words = np.zeros((2, 3, W, W))
    row = s.pronoun + 1
    words[0, 0, row, 3] = 0.6                     # tom (word 2): right
    words[0, 1, row, 1] = 0.6                     # kate (word 0): wrong
    words[0, 2, row, 8] = 0.6                     # sam (word 7): wrong
    words[1, 0, row, [0, 6, 3]] = [0.5, 0.3, 0.2]  # [CLS] and 'he' itself outweigh tom, but are no candidates
    words[1, 1, row, [1, 3]] = 0.4                # a tie between kate and tom goes to the earlier, kate
    words[1, 2, row - 1, 3] = 1.0                 # another row points at tom; the pronoun's row is all zero
    expected = np.array([[True, False, False], [True, False, False]])
    assert rt.resolves(words, s).tolist() == expected.tolist()


def test_best_head_is_the_first_maximum_in_layer_major_order():
    scores = np.array([[0.1, 0.7, 0.2], [0.7, 0.3, 0.0]])
    assert rt.best_head(scores) == [0, 1]
    assert rt.best_head(np.array([[0.1, 0.2], [0.9, 0.3]])) == [1, 0]


@pytest.mark.parametrize("k,n,lo,hi", [(8, 10, 0.4902, 0.9433), (5, 10, 0.2366, 0.7634),
                                       (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0),
                                       (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605)])
def test_wilson_interval_matches_published_values(k, n, lo, hi):
    got = rt.wilson(k, n)
    assert got == pytest.approx((lo, hi), abs=1e-4)


def test_wilson_refuses_an_empty_sample():
    with pytest.raises(ValueError, match=r"need 0 <= k <= n and n > 0, got k=0, n=0"):
        rt.wilson(0, 0)


def test_pair_accuracy_counts_a_pair_only_when_both_are_right():
    pairs = [rt.parse_line(line("Kate met Tom, and he met Sam.", 5, 2, [0, 2, 7], cue="winograd", pair=p))
             for p in ("a", "a", "b", "b")]
    assert rt.pair_accuracy(np.array([True, True, True, False]), pairs) == 0.5


@pytest.mark.parametrize("bad,message", [
    (line("Anna called Peter because she was late.", 1, 0, [0, 2]), "bad.jsonl:2: word 1 is 'called', not a pronoun"),
    (line("Anna called Peter because she was late.", 4, 0, [0, 9]),
     "bad.jsonl:2: a word index is out of range: the text has 8 words (indices 0..7)"),
    (line("Anna called Peter because she was late.", 4, 6, [0, 2]),
     "bad.jsonl:2: the antecedent must be among the candidates and the pronoun must not"),
    (line("Anna called Peter because she was late.", 4, 0, [0]),
     "bad.jsonl:2: candidates must be at least two distinct word indices in increasing order"),
    (line("Anna called Peter because she was late.", 4, 0, [0, 2], cue="syntax"),
     "bad.jsonl:2: split must be one of ('dev', 'test') and cue one of ('gender', 'number', 'structure', 'winograd'), "
     "got 'test' and 'syntax'"),
    ('{"id": "x", "text": "She left."}', "bad.jsonl:2: expected exactly the keys id, split, text, pronoun, antecedent, "
                                        "candidates, cue, pair"),
    ("{not json", "bad.jsonl:2: not JSON"),
])
def test_a_bad_line_is_refused_with_its_line_number_and_problem(tmp_path, bad, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(TINY[0] + "\n" + bad + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as e:
        rt.load(path)
    assert str(e.value).startswith(message)


REPORT_KEYS = {"coref_realtext_head", "coref_acc_realtext_dev", "coref_acc_realtext_test",
               "coref_acc_realtext_test_ci95", "coref_baseline_first_noun_realtext_test",
               "coref_baseline_nearest_noun_realtext_test", "coref_acc_realtext_test_cued",
               "coref_baseline_nearest_noun_realtext_test_cued", "coref_acc_realtext_test_winograd"} | {
    f"coref_{kind}_realtext_test_{cue}" for kind in ("acc", "baseline_first_noun", "baseline_nearest_noun")
    for cue in rt.CUES}


def test_report_on_the_shipped_coref_encoder_chooses_its_head_on_dev(sentences):
    model, meta = checkpoints.load("coref_encoder")
    tok = text_input.tokenizer_of(meta)
    out = rt.report(model, tok, sentences=sentences)
    assert REPORT_KEYS <= set(out)
    dev = [s for s in sentences if s.split == "dev"]
    test = [s for s in sentences if s.split == "test"]
    dev_scores, test_scores = rt.head_scores(model, tok, dev), rt.head_scores(model, tok, test)
    layer, head = out["coref_realtext_head"]
    assert dev_scores[layer, head] == dev_scores.max()
    assert out["coref_acc_realtext_dev"] == pytest.approx(dev_scores[layer, head], abs=1e-4)
    assert out["coref_acc_realtext_test"] == pytest.approx(test_scores[layer, head], abs=1e-4)
    lo, hi = out["coref_acc_realtext_test_ci95"]
    assert lo < out["coref_acc_realtext_test"] < hi
    assert out["coref_baseline_first_noun_realtext_test"] == pytest.approx(
        np.mean([s.antecedent == s.candidates[0] for s in test]), abs=1e-4)
