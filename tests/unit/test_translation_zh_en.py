"""The Chinese→English corpus and code, without the shipped weights: the tutorial's pair and the measure words are
in training, the held-out split is disjoint from it, a Chinese source is read character by character with a
message naming unknown characters, English is written with spaces, and sacreBLEU gives the hand-computed score."""
import math
import random

import pytest

from model.data import translation_corpus as corpus
from model.data import translation_corpus_possession as possession
from model.data import translation_corpus_zh_en as corpus_zh_en
from model.tasks import translation as translate
from model.training.recipes.translator_zh_en import sacrebleu_score, tokenizers


@pytest.fixture(scope="module")
def training_pairs() -> set[tuple[str, str]]:
    """(Chinese, English) of the possession grammar's training pairs: 5,000 draws of each training template,
    those with a held-out word combination left out (as train_pair does)."""
    rng = random.Random(0)
    drawn = (possession.sample(rng, t) for t in possession.TRAIN_TEMPLATES for _ in range(5_000))
    return {(p.zh, p.en) for p in drawn if not possession.is_heldout_combo(p)}


@pytest.fixture(scope="module")
def toks():
    return tokenizers()


def test_the_tutorials_sentence_is_a_training_pair_without_its_full_stop(training_pairs):
    assert ("我有一只猫", "i have a cat") in training_pairs
    assert ("我有一只猫。", "i have a cat .") in training_pairs
    assert possession.TUTORIAL == ("我有一只猫", "i have a cat")


@pytest.mark.parametrize("zh,en", [
    ("他有两本书", "he has two books"),                       # 本 for books, a number and the plural
    ("我们有一辆自行车。", "we have a bike ."),               # 辆 for vehicles
    ("女孩有两个苹果", "the girl has two apples"),            # 个
    ("你有一把雨伞吗？", "do you have an umbrella ?"),        # 把, and "an" before a vowel
    ("老师没有自行车", "the teacher does not have a bike"),   # 没有 takes the bare noun
    ("你有几只狗？", "how many dogs do you have ?"),          # 几 + measure word
    ("他有一本旧书", "he has an old book"),                    # the adjective between measure word and noun
    ("护士的姐姐有一封信。", "the sister of the nurse has a letter ."),
])
def test_possession_sentences_count_with_the_nouns_measure_word(training_pairs, zh, en):
    assert (zh, en) in training_pairs


def test_no_heldout_pair_can_be_drawn_for_training(training_pairs):
    held = possession.heldout_pairs()
    assert len(held) == 220 and len({p.en for p in held}) == 220
    assert not training_pairs & {(p.zh, p.en) for p in held}
    for p in held:
        assert p.template in possession.HELDOUT_TEMPLATES or possession.is_heldout_combo(p)
    rng = random.Random(1)
    for _ in range(5_000):
        p = corpus_zh_en.train_pair(rng)
        assert p.template not in corpus_zh_en.HELDOUT_TEMPLATES
        assert not (possession.is_heldout_combo(p) if corpus_zh_en.is_possession(p) else corpus.is_heldout_combo(p))
    assert ("我有一只猫", "i have a cat") not in {(p.zh, p.en) for p in held}
    # "three horses", "two umbrellas", "a red cat": held out, never in training
    assert not [e for _, e in training_pairs if "three horses" in e or "two umbrellas" in e or "red cat" in e]


def test_the_evaluation_set_is_both_grammars_heldout_pairs_as_generated():
    pairs = corpus_zh_en.heldout_pairs()
    assert len(pairs) == 520 + 220
    assert [p.en for p in pairs[:520]] == [p.en for p in corpus.heldout_pairs()]
    assert sum(map(corpus_zh_en.is_possession, pairs)) == 220
    # the other grammar's sentences keep their full stop here; training sometimes drops it on both sides
    statement = next(p for p in pairs if p.zh.endswith("。"))
    short = corpus_zh_en.unmarked(statement)
    assert short.zh + "。" == statement.zh and short.en + " ." == statement.en


def test_every_pair_is_inside_both_vocabularies(toks):
    src_tok, tgt_tok = toks
    rng = random.Random(2)
    for p in corpus_zh_en.heldout_pairs() + [corpus_zh_en.train_pair(rng) for _ in range(3_000)]:
        assert not any(src_tok.encode(p.zh).unknown) and not any(tgt_tok.encode(p.en).unknown), p
    assert translate.reads_characters(src_tok) and not translate.reads_characters(tgt_tok)


def test_a_chinese_source_is_read_one_character_at_a_time(toks):
    src_tok, _ = toks
    ids = translate.source_ids(src_tok, "我有一只猫")
    assert [src_tok.vocab[i] for i in ids] == ["我", "有", "一", "只", "猫"]
    assert translate.source_ids(src_tok, " 我 有一只猫 ") == ids           # spaces are not read


@pytest.mark.parametrize("typed,message", [
    ("", "Type a Chinese sentence to translate."),
    ("我有一只熊猫", "these are not among them: “熊”."),
    ("我有a cat", "these are not among them: “a”, “cat”."),
    ("猫" * 61, "The sentence has 61 characters; the translator reads at most 60."),
])
def test_a_chinese_source_outside_the_vocabulary_or_too_long_gets_a_message(toks, typed, message):
    with pytest.raises(translate.SourceError) as e:
        translate.source_ids(toks[0], typed)
    assert message in str(e.value)


def test_english_is_written_word_by_word_with_spaces(toks):
    _, tgt_tok = toks
    ids = translate.target_ids(tgt_tok, "i have a cat .")
    assert translate.target_text(tgt_tok, ids) == translate.en_text(tgt_tok, ids) == "i have a cat ."
    with pytest.raises(translate.SourceError, match="lacks “unicorn”"):
        translate.target_ids(tgt_tok, "i have a unicorn")


def test_sacrebleu_gives_the_hand_computed_corpus_bleu():
    """"a b c d e" against "a b c d f": precisions 4/5, 3/4, 2/3, 1/2, same length (BP = 1):
    BLEU = 100 · (4/5 · 3/4 · 2/3 · 1/2)^(1/4)."""
    score, signature = sacrebleu_score(["a b c d e"], ["a b c d f"])
    assert score == pytest.approx(100 * (0.8 * 0.75 * (2 / 3) * 0.5) ** 0.25, abs=1e-6)
    assert sacrebleu_score(["i have a cat ."], ["i have a cat ."])[0] == pytest.approx(100.0)
    assert "tok:13a" in signature and "nrefs:1" in signature
    assert math.isclose(sacrebleu_score(["x y z w"], ["a b c d"])[0], 0.0, abs_tol=1e-9)
