"""The Chinese course world (model/data/course_world_zh.py): every pronoun and candidate is one word as jieba itself
cuts the whole text, the pronoun's gender, animacy and number agree with its antecedent (checked against word lists
and plural markers written here, and against every other sentence), held-out names, nouns, noun pairs and frames
never occur in training, Winograd and agreement minimal pairs flip the answer, the classic examples stay out of
training, and a bad request is refused with its message."""
import difflib
from collections import defaultdict

import jieba
import pytest

from model.data import course_world_zh as world
from model.data import course_zh_agreement as agreement
from model.data import course_zh_people as people
from model.data import course_zh_schemas as schemas
from model.data import text_input, zh_tokenizer

PRONOUN_CLASS = {"他": ("m", "one"), "她": ("f", "one"), "它": ("n", "one"), "他们": ("m", "many"),
                 "她们": ("f", "many"), "它们": ("n", "many")}
# written here, not read from the lists under test: m (a man, men or a mixed group), f, n (a thing or an animal)
KNOWN = {"小红": "f", "小丽": "f", "小芳": "f", "婷婷": "f", "妈妈": "f", "奶奶": "f", "姐姐": "f", "妹妹": "f",
         "阿姨": "f", "女儿": "f", "公主": "f", "姐妹": "f", "太太": "f", "妇女": "f",
         "小明": "m", "小刚": "m", "建国": "m", "志强": "m", "爸爸": "m", "爷爷": "m", "哥哥": "m", "弟弟": "m",
         "叔叔": "m", "儿子": "m", "王子": "m", "兄弟": "m", "先生": "m", "学生": "m", "孩子": "m", "游客": "m",
         "奖杯": "n", "箱子": "n", "小猫": "n", "马路": "n", "餐厅": "n", "饺子": "n", "狗": "n", "镜子": "n",
         "自行车": "n", "蝴蝶": "n"}
PLURAL_BEFORE = ("那些", "这些", "几", "两", "三", "好几")


def jieba_words(text: str) -> list[str]:
    return [w for w, _a, _b in jieba.tokenize(text)]


def is_plural(words: list[str], i: int) -> bool:
    """Word i names several: 们 follows it, or one of the two words before it counts (那些, 几只, 两个, 好几)."""
    return (i + 1 < len(words) and words[i + 1] == "们") or any(w.startswith(PLURAL_BEFORE)
                                                                 for w in words[max(0, i - 2):i])


@pytest.fixture(scope="module")
def training():
    return world.training_samples(3000, seed=0)


@pytest.fixture(scope="module")
def evaluation():
    """Every evaluation split: schema pairs and agreement pairs of each cue."""
    out = {}
    for split in ("val", "heldout_pairs", "heldout_frames"):
        out[("schema", split)] = world.eval_samples(split, 60)
        for cue in world.CUES:
            out[(cue, split)] = world.agreement_samples(split, 40, cues=(cue,))
    return out


def all_samples(training, evaluation):
    return training + [s for v in evaluation.values() for s in v] + world.classic_samples()


def test_every_pronoun_and_candidate_is_one_word_as_jieba_cuts_the_whole_text(training, evaluation):
    refs = 0
    for s in all_samples(training, evaluation):
        words = jieba_words(s.text)
        assert world.words(s.text) == words and "".join(words) == s.text, s.text
        assert not s.refs or (len(s.pair) == 2 and all(words.count(c) == 1 for c in s.pair)), s.text
        for r in s.refs:
            refs += 1
            assert words[r.pronoun_index] == r.pronoun and r.pronoun in PRONOUN_CLASS, s.text
            assert words[r.antecedent_index] == r.antecedent and r.antecedent in s.pair, s.text
    assert refs > 3000


def test_the_chinese_tokenizer_groups_its_pieces_into_the_same_words(training, evaluation):
    tok = zh_tokenizer.load()
    for s in training[:300] + evaluation[("schema", "heldout_pairs")] + world.classic_samples():
        enc = text_input.encode(tok, s.text, "cls_sep")
        assert list(enc.word_texts) == ["[CLS]", *world.words(s.text), "[SEP]"], s.text


def test_the_training_mixture_holds_every_kind_in_about_its_share(training):
    kinds = defaultdict(int)
    for s in training:
        kinds["schema" if s.kind in ("sentence", "repeat") else "plain" if s.kind in ("fact", "ordinary")
              else s.kind] += 1
    for kind, share in world.MIXTURE.items():
        assert abs(kinds[kind] / len(training) - share) < 0.04, (kind, kinds[kind])
    assert sum(s.kind == "repeat" for s in training) > 0 and all(not s.refs for s in training if s.kind == "repeat")


def test_pronouns_agree_with_word_lists_written_here_and_every_word_takes_one_pronoun(training, evaluation):
    taken: dict[str, set] = defaultdict(set)
    checked = 0
    for s in all_samples(training, evaluation):
        for r in s.refs:
            gender, _ = PRONOUN_CLASS[r.pronoun]
            taken[r.antecedent].add(gender)
            if r.antecedent in KNOWN:
                checked += 1
                assert KNOWN[r.antecedent] == gender, (s.text, r)
    assert checked > 300
    assert {w: g for w, g in taken.items() if len(g) > 1} == {}


def test_the_number_of_the_pronoun_is_the_number_of_its_antecedent(training, evaluation):
    checked = 0
    for s in all_samples(training, evaluation):
        words = world.words(s.text)
        for r in s.refs:
            _, number = PRONOUN_CLASS[r.pronoun]
            assert is_plural(words, r.antecedent_index) == (number == "many"), s.text
            checked += 1
    assert checked > 3000


def test_an_agreement_sentence_has_exactly_one_candidate_the_pronoun_agrees_with(training, evaluation):
    gender_of: dict[str, str] = {}
    for s in all_samples(training, evaluation):
        for r in s.refs:
            gender_of[r.antecedent] = PRONOUN_CLASS[r.pronoun][0]
    samples = [s for s in all_samples(training, evaluation) if s.kind in world.CUES]
    assert len(samples) > 1000
    for s in samples:
        (r,) = s.refs
        (other,) = [c for c in s.pair if c != r.antecedent]
        words = world.words(s.text)
        gender, number = PRONOUN_CLASS[r.pronoun]
        if s.kind == "gender" and other in gender_of:
            assert gender_of[other] != gender, s.text
        if s.kind == "number":
            assert is_plural(words, words.index(other)) != (number == "many"), s.text
        if s.kind == "structure":                 # both candidates of the pronoun's kind: syntax alone decides
            assert gender_of.get(other, gender) == gender
            assert is_plural(words, words.index(other)) == (number == "many"), s.text


def lexicon_words(lex: people.Lexicon) -> set[str]:
    return {*lex.female_names, *lex.male_names, *lex.female_nouns, *lex.male_nouns, *lex.female_groups,
            *lex.male_groups, *lex.mixed_groups, *(n for n, _ in lex.things), *(n for n, _ in lex.animals)}


def test_held_out_and_validation_names_and_nouns_never_occur_in_training(training):
    seen = {w for s in training for w in world.words(s.text)}
    train, val, held = (lexicon_words(people.lexicon(k)) for k in ("train", "val", "heldout"))
    assert not (train & val) and not (train & held) and not (val & held)
    schema_nouns = {n for name, s in schemas.SCHEMAS.items() if name != "people_help" for n in s.a_nouns + s.b_nouns}
    assert not schema_nouns & (train | val | held)
    assert seen & train and not seen & (val | held)


def test_held_out_noun_pairs_and_frames_never_occur_in_training(training):
    for name in schemas.SCHEMAS:
        split = schemas.pair_splits(name)
        train, val, held = (set(split[k]) for k in ("train", "val", "heldout"))
        assert not (train & val) and not (train & held) and not (val & held)
        assert schemas.CLASSIC_PAIRS & set(schemas._all_pairs(name)) <= held
    used = [s for s in training if s.kind in ("sentence", "repeat")]
    assert len(used) > 800
    for s in used:
        assert s.pair in schemas.pair_splits(s.schema)["train"] and s.frame not in schemas.HELDOUT_FRAMES[s.schema]
    for cue in world.CUES:
        frames = {s.frame for s in training if s.kind == cue}
        assert frames and not frames & set(agreement.HELDOUT_FRAMES[cue]), cue


def test_evaluation_splits_draw_from_their_own_pairs_and_frames(evaluation):
    for split in ("val", "heldout_pairs", "heldout_frames"):
        for s in evaluation[("schema", split)]:
            pairs, frames = schemas.split_spec(split, s.schema)
            assert s.pair in pairs and s.frame in frames
        for cue in world.CUES:
            lexicon, frames = agreement.split_spec(split, cue)
            for s in evaluation[(cue, split)]:
                assert s.frame in frames and set(s.pair) <= lexicon_words(lexicon), s.text


def _sides(samples):
    assert len(samples) % 2 == 0
    return list(zip(samples[::2], samples[1::2]))


def test_winograd_pairs_share_everything_up_to_the_pronoun_and_flip_the_answer(evaluation):
    for split in ("val", "heldout_pairs", "heldout_frames"):
        for a, b in _sides(evaluation[("schema", split)]):
            ra, rb = a.refs[0], b.refs[0]
            wa, wb = world.words(a.text), world.words(b.text)
            assert a.pair_id == b.pair_id and a.pair == b.pair and ra.antecedent != rb.antecedent
            assert wa[:ra.pronoun_index + 1] == wb[:rb.pronoun_index + 1] and wa != wb


def changed_text(a: str, b: str) -> list[tuple[str, str]]:
    """The spans of characters that differ between two texts: [(in a, in b)]."""
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return [(a[i:j], b[k:m]) for tag, i, j, k, m in ops if tag != "equal"]


def test_agreement_pairs_differ_only_in_the_pronoun_or_the_control_verb_and_flip_the_answer(evaluation):
    for cue in world.CUES:
        for a, b in _sides(evaluation[(cue, "heldout_pairs")] + evaluation[(cue, "heldout_frames")]):
            ra, rb = a.refs[0], b.refs[0]
            assert a.pair_id == b.pair_id and a.pair == b.pair and ra.antecedent != rb.antecedent, (a.text, b.text)
            wa = world.words(a.text)
            at = len("".join(wa[:ra.pronoun_index]))
            if cue == "structure":               # a verb of asking, then 答应, before the same pronoun
                verb = next(w for w in wa[wa.index(a.pair[0]) + 1:] if w != "们")
                assert ra.pronoun == rb.pronoun and verb in ("让", "叫", "请", "求", "托", "嘱咐", "提醒"), a.text
                assert a.text.replace(verb, "答应", 1) == b.text
            else:                                # the same text with the other pronoun in its place
                assert a.text[:at] + rb.pronoun + a.text[at + len(ra.pronoun):] == b.text, (a.text, b.text)


def test_the_classic_examples_differ_in_one_word_flip_the_answer_and_stay_out_of_training(training):
    classic = world.classic_samples()
    assert [(s.refs[0].pronoun, s.refs[0].antecedent) for s in classic] == [
        ("它", "奖杯"), ("它", "箱子"), ("它", "小猫"), ("它", "马路")]
    for a, b in zip(classic[::2], classic[1::2]):
        assert len(changed_text(a.text, b.text)) == 1 and len(changed_text(a.text, b.text)[0][0]) == 1
    texts = {s.text for s in training}
    assert not texts & {s.text for s in classic}
    assert not {s.pair for s in training if s.kind in ("sentence", "repeat")} & schemas.CLASSIC_PAIRS


def test_bad_requests_are_refused_with_their_message():
    with pytest.raises(ValueError, match="eval_samples is for val / heldout_pairs / heldout_frames"):
        world.eval_samples("train")
    with pytest.raises(ValueError, match="mixture keys must be among schema, plain, gender, number, structure"):
        world.training_samples(10, mixture={"passage": 1.0})
    with pytest.raises(ValueError, match="split must be one of"):
        world.agreement_samples("test", 2)
