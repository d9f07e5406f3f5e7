"""The teaching BPE learner: merges worked out by hand, and the same merges as `tokenizers`' BpeTrainer."""
import json
import random

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from model.data.bpe_steps import learn, merge_word, segment

# Sennrich et al.'s example: low x5, lower x2, newest x6, widest x3
SENNRICH = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


def test_merge_joins_left_to_right_without_overlap():
    assert merge_word(("a", "a", "a"), ("a", "a")) == ("aa", "a")
    assert merge_word(("l", "o", "w", "l", "o"), ("l", "o")) == ("lo", "w", "lo")


def test_first_merges_on_sennrich_example_match_hand_counts():
    # by hand: (e,s) 6+3=9 and (s,t) 9 tie, e is older than s; then (es,t) 9; (l,o) 5+2=7; (lo,w) 7;
    # then (e,w) 6, (n,e) 6 and (w,est) 6 tie and e < n < w
    steps = learn(SENNRICH, 5)
    assert [(s.pair, s.count) for s in steps] == [
        (("e", "s"), 9), (("es", "t"), 9), (("l", "o"), 7), (("lo", "w"), 7), (("e", "w"), 6)]
    assert steps[3].segmented[0] == ["low"]
    assert steps[3].segmented[5] == ["low", "e", "r"]
    assert steps[3].segmented[7] == ["n", "e", "w", "est"]
    assert steps[4].segmented[7] == ["n", "ew", "est"]
    assert len(steps[0].segmented) == 16            # every word of the text, repeats kept


def test_tie_goes_to_the_older_symbols_not_the_first_seen():
    assert [s.pair for s in learn("cd cd ab ab", 2)] == [("a", "b"), ("c", "d")]


def test_stops_when_every_word_is_one_symbol():
    assert learn("a b a", 3) == []
    assert [s.pair for s in learn("ab ab", 5)] == [("a", "b")]


def test_segment_applies_merges_in_order():
    assert segment("lowest low", [("l", "o"), ("lo", "w"), ("e", "s")]) == [["low", "es", "t"], ["low"]]


def _tokenizers_merges(text: str, k: int) -> list[tuple[str, str]]:
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    alphabet = sorted(set("".join(text.split())))
    trainer = trainers.BpeTrainer(vocab_size=len(alphabet) + k, min_frequency=0, show_progress=False,
                                  initial_alphabet=alphabet, special_tokens=[])
    tok.train_from_iterator([text], trainer)
    return [tuple(m) for m in json.loads(tok.to_str())["model"]["merges"]]


@pytest.mark.parametrize("text", [SENNRICH, "walk walks walked walking talk talks talked",
                                  "the cat sat on the mat with the hat"])
def test_same_merges_as_tokenizers_on_page_examples(text):
    assert [s.pair for s in learn(text, 12)] == _tokenizers_merges(text, 12)


def test_same_merges_as_tokenizers_on_random_texts_full_of_ties():
    rng = random.Random(0)
    for _ in range(60):
        words = ["".join(rng.choice("abcd") for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 12))]
        text = " ".join(words)
        k = rng.randint(1, 10)
        assert [s.pair for s in learn(text, k)] == _tokenizers_merges(text, k), text
