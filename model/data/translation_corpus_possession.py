"""Possession sentences with Chinese measure words, in both languages: 我有一只猫 ↔ "i have a cat",
他有两本书 ↔ "he has two books", 老师没有自行车 ↔ "the teacher does not have a bike",
你有一把雨伞吗？ ↔ "do you have an umbrella ?", 他们有几辆汽车？ ↔ "how many cars do they have ?".

Chinese counts a noun with a number and the noun's measure word (一只猫, 一本书, 一辆自行车, 两个苹果); English
with "a" / "an" or a number and the plural. The tutorial's example (the decoder's masked attention over
"我有一只猫" → "I have a cat") is a training sentence: a statement may end without its full stop, as the
tutorial writes it, on both sides at once.

Deterministic, split like `translation_corpus`: `train_pair(rng)` never yields a held-out template or a held-out
word combination; `heldout_pairs()` is the fixed evaluation set built from both.
"""
import itertools
import random

from model.data.translation_corpus import PEOPLE, RELATIVES, Pair, heldout_set

TUTORIAL = ("我有一只猫", "i have a cat")
# English subject -> (Chinese, takes "has" / "does": third person singular)
PRONOUNS = {"i": ("我", False), "you": ("你", False), "he": ("他", True), "she": ("她", True),
            "we": ("我们", False), "they": ("他们", False)}
# English noun -> (plural, Chinese, measure word)
NOUNS = {"cat": ("cats", "猫", "只"), "dog": ("dogs", "狗", "只"), "bird": ("birds", "鸟", "只"),
         "fish": ("fish", "鱼", "条"), "horse": ("horses", "马", "匹"), "book": ("books", "书", "本"),
         "bike": ("bikes", "自行车", "辆"), "car": ("cars", "汽车", "辆"), "apple": ("apples", "苹果", "个"),
         "cake": ("cakes", "蛋糕", "个"), "umbrella": ("umbrellas", "雨伞", "把"), "key": ("keys", "钥匙", "把"),
         "map": ("maps", "地图", "张"), "photo": ("photos", "照片", "张"), "ticket": ("tickets", "票", "张"),
         "letter": ("letters", "信", "封")}
ADJECTIVES = {"new": "新", "old": "旧", "big": "大", "small": "小", "red": "红色的"}
NUMBERS = {"two": "两", "three": "三", "four": "四", "five": "五"}
# A template: (form, subject, count, adjective?). form: "has" (我有一只猫), "not" (我没有猫), "ask" (你有一只猫吗？),
# "how_many" (你有几只猫？); subject: "pron" (我), "person" (老师), "of" (护士的姐姐); count: "one" | "many".
FORMS = ("has", "not", "ask", "how_many")
SUBJECTS = ("pron", "person", "of")
TEMPLATES = [(f, s, c, a) for f, s, c, a in itertools.product(FORMS, SUBJECTS, ("one", "many"), (False, True))
             if (f != "not" or c == "one") and (f != "how_many" or c == "many")]
HELDOUT_TEMPLATES = [("ask", "of", "many", True), ("not", "person", "one", True), ("how_many", "of", "many", False),
                     ("has", "of", "many", True)]
TRAIN_TEMPLATES = [t for t in TEMPLATES if t not in HELDOUT_TEMPLATES]
# Word combinations never seen in training: number + noun, adjective + noun, pronoun + noun.
HELDOUT_NUMBER = {("three", "horse"), ("two", "umbrella"), ("five", "bike"), ("four", "letter")}
HELDOUT_ADJ = {("red", "cat"), ("small", "horse"), ("old", "map")}
HELDOUT_OWNER = {("she", "dog"), ("they", "car"), ("we", "photo")}
HELDOUT_PER_TEMPLATE = 30
HELDOUT_COMBO_PAIRS = 100
UNMARKED = 0.5              # share of statements written without the full stop (the tutorial's 我有一只猫)


def _subject(rng: random.Random, kind: str) -> tuple[str, str, bool]:
    """(English, Chinese, third person singular?) of a subject."""
    if kind == "pron":
        en = rng.choice(list(PRONOUNS))
        return en, PRONOUNS[en][0], PRONOUNS[en][1]
    if kind == "of":
        rel, owner = rng.choice(list(RELATIVES)), rng.choice(list(PEOPLE))
        return f"the {rel} of the {owner}", f"{PEOPLE[owner]}的{RELATIVES[rel]}", True
    person = rng.choice(list(PEOPLE))
    return f"the {person}", PEOPLE[person], True


def _article(word: str) -> str:
    """"an" before a vowel ("an apple", "an old map"), else "a"."""
    return "an" if word[0] in "aeiou" else "a"


def sample(rng: random.Random, template: tuple) -> Pair:
    """One sentence pair drawn from a possession template."""
    form, subject, count, with_adj = template
    s_en, s_zh, third = _subject(rng, subject)
    noun = rng.choice(list(NOUNS))
    plural, n_zh, measure = NOUNS[noun]
    combos = {("owner", s_en, noun)} if subject == "pron" else set()
    adj_en, adj_zh = "", ""
    if with_adj:
        adj = rng.choice(list(ADJECTIVES))
        adj_en, adj_zh = f"{adj} ", ADJECTIVES[adj]
        combos.add(("adj", adj, noun))
    has, does = ("has", "does") if third else ("have", "do")
    if form == "how_many":
        return Pair(f"how many {adj_en}{plural} {does} {s_en} have ?", f"{s_zh}有几{measure}{adj_zh}{n_zh}？",
                    template, frozenset(combos))
    if count == "one":
        obj_en, number_zh = f"{_article(adj_en or noun)} {adj_en}{noun}", "一" + measure
    else:
        number = rng.choice(list(NUMBERS))
        obj_en, number_zh = f"{number} {adj_en}{plural}", NUMBERS[number] + measure
        combos.add(("number", number, noun))
    if form == "ask":
        return Pair(f"{does} {s_en} have {obj_en} ?", f"{s_zh}有{number_zh}{adj_zh}{n_zh}吗？", template,
                    frozenset(combos))
    if form == "not":           # 没有 takes the bare noun: 我没有猫
        en, zh = f"{s_en} {does} not have {obj_en}", f"{s_zh}没有{adj_zh}{n_zh}"
    else:
        en, zh = f"{s_en} {has} {obj_en}", f"{s_zh}有{number_zh}{adj_zh}{n_zh}"
    if rng.random() >= UNMARKED:
        en, zh = en + " .", zh + "。"
    return Pair(en, zh, template, frozenset(combos))


def is_heldout_combo(pair: Pair) -> bool:
    for kind, a, b in pair.combos:
        if (kind == "number" and (a, b) in HELDOUT_NUMBER) or (kind == "adj" and (a, b) in HELDOUT_ADJ) \
                or (kind == "owner" and (a, b) in HELDOUT_OWNER):
            return True
    return False


def train_pair(rng: random.Random) -> Pair:
    """A training pair: a training template, no held-out word combination."""
    while True:
        pair = sample(rng, rng.choice(TRAIN_TEMPLATES))
        if not is_heldout_combo(pair):
            return pair


def heldout_pairs(seed: int = 4321) -> list[Pair]:
    """The fixed evaluation set: sentences of held-out templates, then training-template sentences that use a
    held-out word combination (each distinct)."""
    return heldout_set(sample, HELDOUT_TEMPLATES, HELDOUT_PER_TEMPLATE, TRAIN_TEMPLATES, is_heldout_combo,
                       HELDOUT_COMBO_PAIRS, seed)


def all_words_en() -> list[str]:
    """Every English text piece the grammar can use (for the vocabulary)."""
    pieces = ["a", "an", "have", "has", "do", "does", "not", "how", "many", ".", "?", "the", "of"]
    pieces += list(PRONOUNS) + list(NOUNS) + [v[0] for v in NOUNS.values()] + list(ADJECTIVES) + list(NUMBERS)
    return pieces + list(PEOPLE) + list(RELATIVES)


def all_text_zh() -> list[str]:
    """Every Chinese string the grammar can emit (for the character vocabulary)."""
    texts = [v[0] for v in PRONOUNS.values()] + [v[1] + v[2] for v in NOUNS.values()]
    texts += list(ADJECTIVES.values()) + list(NUMBERS.values()) + list(PEOPLE.values()) + list(RELATIVES.values())
    return texts + ["一几有没的吗。？"]
