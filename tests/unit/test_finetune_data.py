"""The fine-tuning data, checked against its sources: WordNet definitions split as the pre-training corpus is, tagged
course-world sentences and QA passages whose held-out nouns never occur in training, fortune sentence pairs that are
consecutive (or from elsewhere) as they say; and the baselines, on data whose answer is known by construction."""
import numpy as np
import pytest

from model.data import bpe, course_qa, course_tags, real_text, sentence_pairs, wordnet_masked
from model.tasks import finetune_inputs
from model.training.recipes import finetune_binary, finetune_cls, finetune_nsp, finetune_span, finetune_tag


def test_wordnet_examples_are_the_corpus_documents_and_split_as_they_are(tmp_path):
    """The documents wordnet_masked builds (and hashes for the split) are the ones real_text builds and pre-training
    was split by: both read the first 1,500 lines of each data file."""
    folder = tmp_path / real_text.WORDNET_DIR
    folder.mkdir(parents=True)
    lines = {}
    for name in wordnet_masked.FILES:
        lines[name] = open(f"/usr/share/wordnet/{name}", encoding="latin-1").read().splitlines()[:1500]
        (folder / name).write_text("\n".join(lines[name]) + "\n", encoding="latin-1")
    expected = [d.text for d in real_text.wordnet_documents(tmp_path)]
    parsed = [wordnet_masked.parse_line(line) for name in real_text.WORDNET_FILES for line in lines[name]]
    assert [p[2] for p in parsed if p is not None] == expected
    train, held = wordnet_masked.split()
    assert len(held) > 1500 and len(train) > 15 * len(held) and {m.label for m in held} == set(wordnet_masked.LABELS)
    assert not {m.text.lower() for m in train} & {m.text.lower() for m in held}
    documents = {}                                   # (lemmas, example sentence) -> its synset's document
    for lemmas, sentences, document in filter(None, parsed):
        for sentence in sentences:
            documents.setdefault((tuple(lemmas), sentence.lower()), document)
    checked = [(m, documents.get((m.lemmas, m.text.replace("[MASK]", m.word).lower())))
               for m in wordnet_masked.examples()[:4000]]
    checked = [(m, d) for m, d in checked if d is not None]
    assert len(checked) > 500
    for m, document in checked:
        assert m.heldout == real_text.is_heldout(document)
        assert m.text.count("[MASK]") == 1 and m.label == "noun"            # the first lines are data.noun's


def test_the_masked_word_is_a_lemma_or_its_inflection_found_once():
    exc = wordnet_masked.irregular()
    assert wordnet_masked.find("they stopped the car", ["stop", "halt"], exc) == (5, 12)
    assert wordnet_masked.find("two geese flew over", ["goose"], exc) == (4, 9)                # noun.exc
    assert wordnet_masked.find("he gave up smoking", ["give up", "quit"], exc) == (3, 10)      # verb.exc, two words
    assert wordnet_masked.find("a well-known actor", ["well-known", "famous"], exc) == (2, 12)
    assert wordnet_masked.find("the flies buzzed", ["fly"], exc) == (4, 9)
    assert wordnet_masked.find("the chess club", ["check"], exc) is None                     # no form of it
    assert wordnet_masked.find("a dog is a dog", ["dog"], exc) is None                       # twice: left out
    assert wordnet_masked.find("stopgap measures", ["stop"], exc) is None                    # inside a word


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
    masked = wordnet_masked.split()[1][:20]
    for e, m in zip(finetune_cls.examples(tok, masked, 64), masked):
        assert e["ids"] == finetune_inputs.single(tok, m.text, 64, masks=True)[0]
        assert e["ids"].count(bpe.MASK) == 1 and e["ids"][0] == bpe.CLS and e["ids"][-1] == bpe.SEP
        assert tok.decode(e["ids"][1:-1]).replace(" ", "") == bpe.normalize(m.text).replace(" ", "")
    pairs = [sentence_pairs.Pair("It takes great courage to let yourself appear weak.", "Nobody knew! " * 30, True),
             sentence_pairs.Pair("我有一只猫。", "The cat sat.", False)]
    for e, p in zip(finetune_nsp.examples(tok, pairs, 40), pairs):
        assert e["ids"] == finetune_inputs.pair(tok, p.a, p.b, 40)[0]


def test_classification_baselines_on_data_whose_answer_is_known():
    """Word order alone tells "dog bites man" (0) from "man bites dog" (1): the same words, so a bag of words gives
    both one answer (one of the two right), word pairs tell them apart."""
    words = [("dog bites man", 0), ("man bites dog", 1)] * 5 + [("cat", 0)] * 2               # 7 of 12 are 0
    train = [{"text": t, "target": y} for t, y in words]
    test = [{"text": t, "target": y} for t, y in (("dog bites man", 0), ("man bites dog", 1), ("cat", 0))]
    found = finetune_cls.baselines(train, test)
    assert found == {"cls_baseline_majority": pytest.approx(2 / 3, abs=1e-4),
                     "cls_baseline_bow": pytest.approx(2 / 3, abs=1e-4), "cls_baseline_bow_bigrams": 1.0}


def test_binary_examples_are_the_noun_and_verb_sentences_with_y_1_for_a_verb():
    tok = bpe.load()
    masked = [wordnet_masked.Masked(text, label, "w", ("w",), False) for text, label in
              (("the [MASK] barked", "noun"), ("they [MASK] home", "verb"), ("a [MASK] day", "adjective"),
               ("run [MASK]", "adverb"))]
    found = finetune_binary.examples(tok, masked, 64)
    assert [(e["text"], e["target"]) for e in found] == [("the [MASK] barked", 0), ("they [MASK] home", 1)]
    assert all(e["ids"][0] == bpe.CLS and e["ids"].count(bpe.MASK) == 1 for e in found)
    train = [{"text": "they ran home", "target": 1}, {"text": "they sat down", "target": 1},
             {"text": "the dog slept", "target": 0}]
    test = [{"text": "they ran", "target": 1}, {"text": "the dog", "target": 0}]
    assert finetune_binary.baselines(train, test) == {"binary_baseline_majority": 0.5, "binary_baseline_bow": 1.0}


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
