"""The Chinese pronoun set (model/data/coref_realtext_zh.jsonl) and its reader (model/tasks/coref_realtext_zh.py):
every line validates, the counts per cue and split hold, Winograd pairs are whole, the labelled word is a pronoun as
jieba itself cuts the text, gender and number labels agree with word lists written here, the baselines match a count
made here and hand-worked sentences, and a bad line is refused with a message that names it."""
import json
import math
from collections import Counter

import jieba
import pytest

from model.data.bpe import word_spans
from model.tasks import coref_realtext_zh as zh
from model.tasks.coref_realtext import SPLITS

TARGETS = {"gender": 60, "number": 60, "structure": 50, "winograd": 70}     # the brief's counts, each +-20%
PRONOUNS = {"他", "她", "它", "他们", "她们", "它们"}
FEMALE = set("阿姨 小红 妈妈 小丽 奶奶 小芳 妹妹 老板娘 姐姐 外婆 妻子 女儿 小美 老奶奶 姑姑 新娘 母亲 陈女士 "
             "小孙女 女生 王小姐 舅妈 表姐 孙女 女士 王奶奶".split())
MALE = set("小明 叔叔 哥哥 小刚 孙子 表哥 爸爸 先生 外公 丈夫 王大爷 小伙子 侄子 新郎 弟弟 儿子 赵先生 爷爷 男生 "
           "刘先生 小男孩 舅舅 表弟 大伟 外甥".split())
GENDER_OF = {"他": MALE, "她": FEMALE, "她们": FEMALE}
OTHER_GENDER = {"他": FEMALE, "她": MALE, "她们": MALE, "他们": set()}
PLURAL_WORDS = ("这些", "那些", "很多", "许多", "那群", "好几")
COUPLES = {"夫妻", "老夫妻"}


def jieba_words(text: str) -> list[str]:
    return [w for w, _a, _b in jieba.tokenize(text)]


def is_plural(w: list[str], i: int) -> bool:
    """Word i names several: it ends in 们, 们 follows it, it names a couple, or one of the two words before it
    counts (两个, 几只, 二十名, 好几个, 这些, 那些, 很多, 那群)."""
    before = w[max(0, i - 2):i]
    return (w[i].endswith("们") or w[i] in COUPLES or (i + 1 < len(w) and w[i + 1] == "们")
            or any(x.startswith(PLURAL_WORDS) or x[0] in "两二三四五六七八九十几" for x in before))


@pytest.fixture(scope="module")
def sentences():
    return zh.load()


def test_every_line_parses_and_there_are_at_least_200_distinct_sentences(sentences):
    lines = [t for t in zh.DATA.read_text(encoding="utf-8").splitlines() if t.strip()]
    assert len(sentences) == len(lines) >= 200
    assert len({s.id for s in sentences}) == len(sentences)
    assert len({s.text for s in sentences}) == len(sentences)


def test_each_cue_is_on_both_splits_near_its_target_and_about_40_percent_is_dev(sentences):
    counts = Counter(s.cue for s in sentences)
    for cue, target in TARGETS.items():
        assert 0.8 * target <= counts[cue] <= 1.2 * target, (cue, counts[cue])
        dev = sum(s.cue == cue and s.split == "dev" for s in sentences)
        assert 0.3 <= dev / counts[cue] <= 0.5, (cue, dev, counts[cue])
    assert 0.35 <= sum(s.split == "dev" for s in sentences) / len(sentences) <= 0.45


def test_winograd_pairs_have_two_sentences_in_one_split_that_flip_the_antecedent(sentences):
    pairs: dict[str, list] = {}
    for s in sentences:
        assert (s.pair is not None) == (s.cue == "winograd"), s.id
        if s.pair:
            pairs.setdefault(s.pair, []).append(s)
    assert len(pairs) >= 30
    for pair, members in pairs.items():
        assert len(members) == 2, pair
        a, b = members
        wa, wb = jieba_words(a.text), jieba_words(b.text)
        assert a.split == b.split, pair
        assert wa[a.antecedent] != wb[b.antecedent], pair
        assert [wa[c] for c in a.candidates] == [wb[c] for c in b.candidates], pair
        assert a.pronoun == b.pronoun and wa[a.pronoun] == wb[b.pronoun], pair


def test_the_labelled_word_is_a_chinese_pronoun_as_jieba_cuts_the_text(sentences):
    for s in sentences:
        w = jieba_words(s.text)
        assert zh.words(s.text) == w, s.text
        assert w[s.pronoun] in PRONOUNS, (s.id, w[s.pronoun])
        assert all(w[c] not in PRONOUNS and w[c] not in "，。、" for c in s.candidates), s.id


def test_the_pages_read_the_same_whole_words(sentences):
    for s in sentences:
        assert [s.text[a:b] for a, b in word_spans(s.text)] == zh.words(s.text), s.text


def test_gender_sentences_have_exactly_one_candidate_of_the_pronouns_gender(sentences):
    for s in (s for s in sentences if s.cue == "gender"):
        w = zh.words(s.text)
        assert all(w[c] in FEMALE | MALE for c in s.candidates), (s.id, s.text)
        assert [c for c in s.candidates if w[c] in GENDER_OF[w[s.pronoun]]] == [s.antecedent], (s.id, s.text)


def test_number_sentences_have_exactly_one_candidate_of_the_pronouns_number(sentences):
    for s in (s for s in sentences if s.cue == "number"):
        w = zh.words(s.text)
        plural = w[s.pronoun].endswith("们")
        assert [c for c in s.candidates if is_plural(w, c) == plural] == [s.antecedent], (s.id, s.text)


def test_structure_and_winograd_candidates_agree_with_the_pronoun(sentences):
    """Where syntax or world knowledge decides, gender and number must not."""
    for s in (s for s in sentences if s.cue in ("structure", "winograd")):
        w = zh.words(s.text)
        nouns = [w[c] for c in s.candidates]
        if w[s.pronoun].startswith("它"):
            assert not set(nouns) & (FEMALE | MALE), (s.id, s.text)
        else:
            assert not set(nouns) & OTHER_GENDER[w[s.pronoun]], (s.id, s.text)
        assert len({is_plural(w, c) for c in s.candidates}) == 1, (s.id, s.text)


def test_baselines_match_a_count_made_here(sentences):
    for split in SPLITS:
        part = [s for s in sentences if s.split == split]
        got = zh.baselines(part)
        for cue in TARGETS:
            group = [s for s in part if s.cue == cue]
            first = sum(min(s.candidates) == s.antecedent for s in group)
            nearest = sum(max([c for c in s.candidates if c < s.pronoun] or [min(s.candidates)]) == s.antecedent
                          for s in group)
            assert got["first_noun"][cue] == pytest.approx(first / len(group)), (split, cue)
            assert got["nearest_noun"][cue] == pytest.approx(nearest / len(group)), (split, cue)
        assert got["first_noun"]["winograd"] == got["nearest_noun"]["winograd"] == 0.5
        assert got["nearest_noun"]["cued"] < 0.6 and got["first_noun"]["cued"] < 0.6


def line(text, pronoun, antecedent, candidates, **kw):
    d = dict(id="x", split="test", text=text, pronoun=pronoun, antecedent=antecedent, candidates=candidates,
             cue="gender", pair=None)
    return json.dumps({**d, **kw}, ensure_ascii=False)


# hand-worked: jieba's words, and what each baseline picks
TINY = [
    # 小明0 给1 王2 阿姨3 打电话4 ，5 因为6 她7 要8 搬家9 。10 -> first: 小明 (wrong), nearest: 阿姨 (right)
    (line("小明给王阿姨打电话，因为她要搬家。", 7, 3, [0, 3]),
     ["小明", "给", "王", "阿姨", "打电话", "，", "因为", "她", "要", "搬家", "。"]),
    # 她0 一1 走进2 教室3 ，4 小刚5 就6 把7 作业本8 还给9 了10 小丽11 。12 -> nothing before 她: both pick 小刚 (wrong)
    (line("她一走进教室，小刚就把作业本还给了小丽。", 0, 11, [5, 11]),
     ["她", "一", "走进", "教室", "，", "小刚", "就", "把", "作业本", "还给", "了", "小丽", "。"]),
    # 小明0 让1 小刚2 帮3 他4 拿5 一下6 书包7 。8 -> first: 小明 (right), nearest: 小刚 (wrong)
    (line("小明让小刚帮他拿一下书包。", 4, 0, [0, 2], cue="structure"),
     ["小明", "让", "小刚", "帮", "他", "拿", "一下", "书包", "。"]),
    # 这台0 电脑1 装2 了3 很多4 游戏5 ，6 所以7 它8 运行9 得10 很慢11 。12 -> first: 电脑 (right), nearest: 游戏 (wrong)
    (line("这台电脑装了很多游戏，所以它运行得很慢。", 8, 1, [1, 5], cue="number"),
     ["这台", "电脑", "装", "了", "很多", "游戏", "，", "所以", "它", "运行", "得", "很慢", "。"]),
]


def test_baselines_on_hand_worked_sentences():
    tiny = [zh.parse_line(t) for t, _ in TINY]
    assert [zh.words(s.text) for s in tiny] == [w for _, w in TINY]
    got = zh.baselines(tiny)
    assert {k: v for k, v in got["first_noun"].items() if k != "winograd"} == {
        "gender": 0.0, "number": 1.0, "structure": 1.0, "cued": 0.5, "all": 0.5}
    assert {k: v for k, v in got["nearest_noun"].items() if k != "winograd"} == {
        "gender": 0.5, "number": 0.0, "structure": 0.0, "cued": 0.25, "all": 0.25}
    assert math.isnan(got["first_noun"]["winograd"]) and math.isnan(got["nearest_noun"]["winograd"])


@pytest.mark.parametrize("bad, message", [
    (line("小明让小刚帮他拿一下书包。", 0, 0, [0, 2]), "x.jsonl:3: word 0 is '小明', not a pronoun"),
    (line("小明让小刚帮他拿一下书包。", 4, 0, [0, 9]),
     "x.jsonl:3: a word index is out of range: the text has 9 words (indices 0..8)"),
    (line("小明让小刚帮他拿一下书包。", 4, 0, [2, 0]),
     "x.jsonl:3: candidates must be at least two distinct word indices in increasing order"),
    (line("小明让小刚帮他拿一下书包。", 4, 7, [0, 2]),
     "x.jsonl:3: the antecedent must be among the candidates and the pronoun must not"),
    (line("小明让小刚帮他拿一下书包。", 4, 0, [0, 2], cue="animacy"),
     "x.jsonl:3: split must be one of ('dev', 'test') and cue one of ('gender', 'number', 'structure', 'winograd'), "
     "got 'test' and 'animacy'"),
    ("{\"id\": ", "x.jsonl:3: not JSON (Expecting value)"),
])
def test_a_bad_line_is_refused_with_its_place_and_problem(bad, message):
    with pytest.raises(ValueError) as e:
        zh.parse_line(bad, "x.jsonl:3")
    assert str(e.value) == message


def test_load_names_the_file_and_line_of_the_first_bad_line(tmp_path):
    good = TINY[2][0]
    path = tmp_path / "mine.jsonl"
    path.write_text(good + "\n\n" + line("小明让小刚帮他拿一下书包。", 1, 0, [0, 2]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^mine\.jsonl:3: word 1 is '让', not a pronoun$"):
        zh.load(path)
    path.write_text(good + "\n" + line("小明让小刚帮他拿一下书包。", 4, 0, [0, 2], split="dev") + "\n",
                    encoding="utf-8")
    assert [s.split for s in zh.load(path)] == ["test", "dev"] and len(zh.load(path, "dev")) == 1
