"""The fine-tuning data, checked against its sources: WordNet definitions split as the pre-training corpus is, tagged
course-world sentences and QA passages whose held-out nouns never occur in training, fortune sentence pairs that are
consecutive (or from elsewhere) as they say; and the baselines, on data whose answer is known by construction."""
import numpy as np
import pytest

from model.data import bpe, course_qa, course_tags, real_text, sentence_pairs, wordnet_classes
from model.tasks import finetune_inputs
from model.training.recipes import finetune_cls, finetune_nsp, finetune_span, finetune_tag


def test_wordnet_glosses_are_the_corpus_documents_and_split_as_they_are(tmp_path):
    """The documents wordnet_classes builds (and hashes for the split) are the ones real_text builds and pre-training
    was split by: both read the first 3,000 lines of data.noun."""
    lines = open("/usr/share/wordnet/data.noun", encoding="latin-1").read().splitlines()[:3000]
    folder = tmp_path / real_text.WORDNET_DIR
    folder.mkdir(parents=True)
    (folder / "data.noun").write_text("\n".join(lines) + "\n", encoding="latin-1")
    for name in ("data.verb", "data.adj", "data.adv"):
        (folder / name).write_text("")
    expected = [d.text for d in real_text.wordnet_documents(tmp_path)]
    parsed = [wordnet_classes.parse_line(line) for line in lines]
    assert [p[3] for p in parsed if p is not None] == expected
    for lex, lemmas, definition, document in filter(None, parsed):
        assert document.startswith(f"{', '.join(lemmas)}: {definition}")     # the input leaves the lemmas out
    train, held = wordnet_classes.split()
    assert len(held) > 2000 and len(train) > 15 * len(held) and {g.label for g in held} == set(wordnet_classes.LABELS)
    assert not {g.definition for g in train} & {g.definition for g in held}
    ours = [p for p in parsed if p is not None and p[0] in wordnet_classes.CLASSES and p[2]]
    first = wordnet_classes.glosses()[:40]
    assert [g.definition for g in first] == [p[2] for p in ours[:40]]
    assert [g.heldout for g in first] == [real_text.is_heldout(p[3]) for p in ours[:40]]


def test_tagged_sentences_tag_exactly_the_nouns_of_their_class_and_hold_out_nouns():
    nouns, held = course_tags.nouns(), course_tags.split_nouns("heldout")
    train_nouns = {n for ns in course_tags.split_nouns("train").values() for n in ns}
    for split in ("train", "heldout"):
        for s in course_tags.sentences(split, 300):
            for (a, b), tag in zip(s.spans, s.tags):
                word = s.text[a:b].lower()
                if tag == "O":                      # a predicate's noun ("had a new chef") is no slot's
                    continue
                assert word in nouns[tag]
                assert (word in train_nouns) == (split == "train")
    assert sum(len(v) for v in held.values()) > 40


def test_tag_examples_put_each_words_tag_on_its_first_piece():
    tok = bpe.load()
    s = course_tags.typed([("the", "O"), ("gazpacho", "DISH"), ("was", "O"), ("cold", "O"), (".", "O")])
    e = finetune_tag.example(tok, s)
    scored = [(tok.decode([e["ids"][i]]).strip(), course_tags.TAGS[t]) for i, t in enumerate(e["target"]) if t != -100]
    assert [t for _w, t in scored] == ["O", "DISH", "O", "O"]                  # the full stop is not scored
    assert scored[1][0] and "gazpacho".startswith(scored[1][0])


def test_qa_answers_are_the_slots_their_question_asks_for():
    tok = bpe.load()
    qs = course_qa.questions("heldout", 40)
    held = {n for ns in course_tags.split_nouns("heldout").values() for n in ns}
    for q in qs:
        assert q.passage[q.start:q.end] == q.answer and q.answer.strip() == q.answer
        e = finetune_span.example(tok, q, 128)
        s, t = e["target"]
        assert e["input"].lo <= s <= t < e["input"].hi
        a, b = finetune_inputs.characters(e["input"], s, t)
        assert e["input"].passage[a:b] == q.answer                              # the target pieces spell it
    words = {w.strip(".?").lower() for q in qs for w in q.passage.split()}
    assert not words & {n for ns in course_tags.split_nouns("train").values() for n in ns} - held
    asked = [q for q in qs if q.question.startswith("Who ate a ")]
    assert asked and all(q.answer in q.passage.split(" ate ")[0] for q in asked)


def test_sentence_pairs_are_consecutive_or_from_another_document():
    docs = tuple(tuple(f"Doc {d} says thing {i}." for i in range(d % 4 + 1)) for d in range(60))
    pairs = sentence_pairs.pairs("heldout", docs=docs)
    assert len(pairs) == sum(len(d) - 1 for d in docs) and 0.35 < np.mean([p.is_next for p in pairs]) < 0.65
    for p in pairs:
        d, i = map(int, p.a[4:-1].split(" says thing "))                     # "Doc 7 says thing 2."
        if p.is_next:
            assert p.b == docs[d][i + 1]
        else:
            assert not p.b.startswith(f"Doc {d} ")
    assert sentence_pairs.pairs("heldout", docs=docs) == pairs != sentence_pairs.pairs("heldout", seed=1, docs=docs)


def test_sentences_end_at_a_stop_before_a_capital():
    assert sentence_pairs.sentences('He left. "Why?" she asked.\nNobody knew! -- Anon') == \
        ["He left.", '"Why?" she asked.', "Nobody knew! -- Anon"]
    assert sentence_pairs.sentences("One. Two? Three! four.") == ["One.", "Two?", "Three! four."]


def test_recipe_inputs_match_the_pages_inputs():
    tok = bpe.load()
    glosses = wordnet_classes.split()[1][:20]
    for e, g in zip(finetune_cls.examples(tok, glosses, 64), glosses):
        assert e["ids"] == finetune_inputs.single(tok, g.definition, 64)[0]
    pairs = [sentence_pairs.Pair("It takes great courage to let yourself appear weak.", "Nobody knew! " * 30, True),
             sentence_pairs.Pair("我有一只猫。", "The cat sat.", False)]
    for e, p in zip(finetune_nsp.examples(tok, pairs, 40), pairs):
        assert e["ids"] == finetune_inputs.pair(tok, p.a, p.b, 40)[0]


def test_classification_baselines_on_data_whose_answer_is_known():
    words = ["cat dog", "dog cat", "bird cat", "apple pear", "pear plum"]
    train = [{"text": t, "target": int(i % 5 >= 3)} for i, t in enumerate(words * 4)]        # 12 of 20 are 0
    test = [{"text": "cat bird", "target": 0}, {"text": "plum apple", "target": 1}, {"text": "dog", "target": 0}]
    found = finetune_cls.baselines(train, test)
    assert found == {"cls_baseline_majority": pytest.approx(2 / 3, abs=1e-4), "cls_baseline_bow": 1.0}


def test_tagging_baselines_count_words_by_hand():
    def e(words):
        return {"words": [(w, 0, t) for w, t in words]}
    train = [e([("the", "O"), ("cat", "ANIMAL")]), e([("a", "O"), ("cat", "ANIMAL"), ("pie", "DISH")])]
    held = [e([("the", "O"), ("pie", "DISH"), ("owl", "ANIMAL")])]
    found = finetune_tag.baselines(train, held)
    assert found["tag_baseline_majority"] == pytest.approx(1 / 3, abs=1e-4)        # O, the most frequent tag
    assert found["tag_baseline_lookup"] == pytest.approx(2 / 3, abs=1e-4)          # "owl" unseen: guessed O
    assert found["tag_baseline_lookup_entities"] == 0.5


def test_overlap_baseline_fits_its_threshold_on_training_pairs():
    train = [{"a": "the red fox ran", "b": "the fox hid", "target": 1},
             {"a": "tea is hot", "b": "dogs bark", "target": 0},
             {"a": "a blue car", "b": "the car stopped", "target": 1},
             {"a": "rain fell", "b": "owls hoot", "target": 0}]
    test = [{"a": "my cat slept", "b": "the cat woke", "target": 1}, {"a": "snow", "b": "fish swim", "target": 0}]
    assert finetune_nsp.baselines(train, test) == {"nsp_baseline_majority": 0.5, "nsp_baseline_overlap": 1.0}
