"""The course-world corpus: held-out pairs and frames really held out, classics never in training,
references point at the right words, the vocabulary covers everything the generator emits."""
import pytest

from model.data import course_world as corpus
from model.data.word_tokenizer import split_words


@pytest.fixture(scope="module")
def train():
    return corpus.training_samples(6000, seed=0)


def _norm(text):
    return " ".join(split_words(text))


def test_training_is_deterministic_in_seed():
    assert corpus.lm_texts(200, seed=3) == corpus.lm_texts(200, seed=3)
    assert corpus.lm_texts(200, seed=3) != corpus.lm_texts(200, seed=4)


def test_mixture_has_every_kind_of_text(train):
    kinds = {s.kind for s in train}
    assert kinds == {"sentence", "passage", "repeat", "fact", "ordinary", "gender", "number", "structure"}


def test_mixture_follows_its_shares(train):
    share = sum(s.kind in ("gender", "number", "structure") for s in train) / len(train)
    expected = sum(corpus.MIXTURE[k] for k in ("gender", "number", "structure"))
    assert abs(share - expected) < 0.03
    with pytest.raises(ValueError, match="mixture keys must be among schema, passage"):
        corpus.training_samples(10, mixture={"limericks": 1.0})


@pytest.mark.parametrize("name", sorted(corpus.SCHEMAS))
def test_pair_splits_are_disjoint_and_cover_all_pairs(name):
    s = corpus.pair_splits(name)
    train, val, held = set(s["train"]), set(s["val"]), set(s["heldout"])
    assert not (train & val) and not (train & held) and not (val & held)
    sch = corpus.SCHEMAS[name]
    assert len(train | val | held) == len(sch.a_nouns) * len(sch.b_nouns)
    assert len(held) >= 0.19 * len(train | val | held)


def test_training_never_uses_heldout_or_val_pairs_or_heldout_frames(train):
    for s in train:
        if s.kind in ("sentence", "passage", "repeat"):
            splits = corpus.pair_splits(s.schema)
            assert s.pair in splits["train"], s
            assert s.frame not in corpus.HELDOUT_FRAMES[s.schema], s


def test_heldout_pair_nouns_still_appear_in_training(train):
    """Held-out pairs combine nouns the model has seen, never together in one sentence."""
    words = {w for s in train for w in split_words(s.text)}
    for name in corpus.SCHEMAS:
        for a, b in corpus.pair_splits(name)["heldout"]:
            assert a in words and b in words


@pytest.mark.parametrize("split", ["val", "heldout_pairs", "heldout_frames"])
def test_eval_splits_draw_only_from_their_pairs_and_frames(split):
    samples = corpus.eval_samples(split, 100) + corpus.eval_samples(split, 20, passages=True)
    for s in samples:
        pairs, frames = corpus.split_spec(split, s.schema)
        assert s.pair in pairs and s.frame in frames


def test_classic_examples_and_paragraph_never_in_training(train):
    texts = {_norm(s.text) for s in train}
    joined = "\n".join(texts)
    assert _norm(corpus.PARAGRAPH) not in joined
    for _, text in corpus.CLASSICS:
        assert _norm(text) not in texts
    for pair in corpus.CLASSIC_PAIRS:
        assert not any(s.pair == pair for s in train)


def test_minimal_pairs_differ_only_in_predicate_and_flip_the_referent():
    samples = corpus.eval_samples("heldout_pairs", 50)
    for a, b in zip(samples[::2], samples[1::2]):
        assert a.pair_id == b.pair_id
        wa, wb = split_words(a.text), split_words(b.text)
        k = a.refs[0].pronoun_index
        assert wa[:k + 1] == wb[:k + 1]
        assert a.refs[0].antecedent != b.refs[0].antecedent


def test_references_point_at_the_pronoun_and_the_antecedent_noun(train):
    schema_kinds = ("sentence", "passage", "repeat", "fact", "ordinary")
    for s in [s for s in train[:2000] if s.kind in schema_kinds] + corpus.eval_samples("heldout_frames", 30,
                                                                                      passages=True):
        words = split_words(s.text)
        for r in s.refs:
            assert words[r.pronoun_index] == r.pronoun and r.pronoun in ("it", "they", "their")
            assert words[r.antecedent_index] == r.antecedent
            assert r.antecedent_index < r.pronoun_index


def test_both_noun_orders_and_both_referents_occur(train):
    sentences = [s for s in train if s.kind == "sentence"]
    a_first = [s for s in sentences if split_words(s.text).index(s.pair[0]) < split_words(s.text).index(s.pair[1])]
    assert 0.2 < len(a_first) / len(sentences) < 0.8
    to_first = [s for s in sentences if s.refs[0].antecedent_index == min(
        split_words(s.text).index(n) for n in s.pair)]
    assert 0.35 < len(to_first) / len(sentences) < 0.65


def test_paragraph_references():
    refs = corpus.classic_refs(corpus.PARAGRAPH)
    assert [(r.pronoun, r.antecedent) for r in refs] == [("it", "restaurant"), ("they", "restaurant"),
                                                          ("their", "restaurant")]


def test_the_word_vocabulary_is_the_hand_picked_core(train):
    vocab = set(corpus.tokenizer().vocab)
    assert {w for _, t in corpus.CLASSICS for w in split_words(t)} <= vocab
    assert set(split_words("The woman ate the raccoon. The raccoon ate the woman.")) <= vocab
    assert len(vocab) == 328
    emitted = {w for s in train for w in split_words(s.text)}
    assert set(split_words(corpus.PARAGRAPH)) <= emitted
    assert emitted - vocab                    # the grown nouns: words a 328-word vocabulary reads as [UNK]


def test_noun_classes_grow_from_wordnet_hyponyms():
    dishes = set(corpus.SCHEMAS["venue_dish"].b_nouns)
    # WordNet 3.0 lists these under soup.n.01 / sandwich.n.01 / pastry.n.02 (wndb, data.noun)
    assert {"gazpacho", "minestrone", "hamburger", "strudel"} <= dishes
    assert {"brasserie", "teahouse"} <= set(corpus.SCHEMAS["venue_dish"].a_nouns)
    assert {"creek", "boulevard"} <= set(corpus.SCHEMAS["animal_place"].b_nouns)
    for name, s in corpus.SCHEMAS.items():
        core_a, core_b = corpus.CORE_NOUNS[name]
        assert s.a_nouns[:len(core_a)] == core_a and s.b_nouns[:len(core_b)] == core_b
        assert len(s.a_nouns) - len(core_a) <= corpus.MAX_GROWN and len(s.b_nouns) - len(core_b) <= corpus.MAX_GROWN
    every = [n for s in corpus.SCHEMAS.values() for n in s.a_nouns + s.b_nouns]
    assert len(every) == len(set(every))       # a noun belongs to one class only
    assert not set(every) & corpus.NOT_GROWN - {n for a, b in corpus.CORE_NOUNS.values() for n in a + b}


def test_texts_are_written_as_typed_with_the_same_words(train):
    assert corpus.natural("the cafe was busy , so i left . they were kind .") == \
        "The cafe was busy, so I left. They were kind."
    for s in train[:200]:
        assert s.text[0].isupper() and " ." not in s.text and " ," not in s.text
        assert split_words(corpus.natural(s.text)) == split_words(s.text)


def test_order_example_words_appear_in_ordinary_text():
    texts = corpus.lm_texts(3000)
    assert any("woman" in t and "raccoon" in t and "ate" in t for t in texts)
