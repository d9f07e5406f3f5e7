"""A generated English→Chinese corpus whose word order differs: noun modifiers move in front of the
noun ("the restaurant near the station" → "车站附近的餐厅", "the sister of the nurse" → "护士的姐姐"),
time and place move in front of the verb ("... in the library every morning" → "每天早上在图书馆..."),
"will" becomes 会 before the place, the past adds 了 after the verb, and questions end in 吗 / 在哪里.

Deterministic: `sample(rng, template)` draws one pair; `train_pair(rng)` never yields a held-out
template or a held-out word combination; `heldout_pairs()` is the fixed evaluation set built from both.
"""
import itertools
import random
from dataclasses import dataclass

PEOPLE = {"teacher": "老师", "student": "学生", "doctor": "医生", "cook": "厨师", "driver": "司机",
          "farmer": "农民", "nurse": "护士", "painter": "画家", "boy": "男孩", "girl": "女孩"}
RELATIVES = {"friend": "朋友", "sister": "姐姐", "brother": "哥哥", "son": "儿子", "daughter": "女儿"}
PLACES = {"restaurant": ("in", "餐厅"), "station": ("at", "车站"), "library": ("in", "图书馆"),
          "school": ("at", "学校"), "hospital": ("in", "医院"), "park": ("in", "公园"),
          "market": ("at", "市场"), "museum": ("in", "博物馆"), "hotel": ("in", "酒店"),
          "bank": ("at", "银行"), "cinema": ("in", "电影院"), "bridge": ("at", "桥")}
THINGS = {"book": "书", "letter": "信", "cake": "蛋糕", "bike": "自行车", "map": "地图", "photo": "照片",
          "key": "钥匙", "umbrella": "雨伞", "ticket": "票", "apple": "苹果"}
PERSON_ADJ = {"young": "年轻的", "kind": "善良的", "busy": "忙碌的", "happy": "快乐的", "tall": "高大的"}
THING_ADJ = {"new": "新的", "old": "旧的", "big": "大的", "small": "小的", "red": "红色的", "famous": "有名的",
             "quiet": "安静的", "beautiful": "漂亮的"}
PREPS = {"near": "附近", "next to": "旁边", "behind": "后面", "in front of": "前面", "across from": "对面"}
# (third person singular, base form, past, Chinese) by the kind of object they take
VERBS = {
    "person": [("meets", "meet", "met", "见"), ("helps", "help", "helped", "帮助"),
               ("waits for", "wait for", "waited for", "等"), ("thanks", "thank", "thanked", "感谢"),
               ("visits", "visit", "visited", "拜访"), ("looks for", "look for", "looked for", "找")],
    "thing": [("buys", "buy", "bought", "买"), ("finds", "find", "found", "找到"), ("sells", "sell", "sold", "卖"),
              ("likes", "like", "liked", "喜欢"), ("wants", "want", "wanted", "想要"),
              ("looks for", "look for", "looked for", "找")],
    "place": [("visits", "visit", "visited", "参观"), ("cleans", "clean", "cleaned", "打扫"),
              ("likes", "like", "liked", "喜欢"), ("leaves", "leave", "left", "离开"),
              ("looks for", "look for", "looked for", "找")],
}
TIMES = {"habit": {"every morning": "每天早上", "every evening": "每天晚上", "on sundays": "星期天",
                   "at noon": "中午", "on weekends": "周末"},
         "future": {"tomorrow": "明天"}, "past": {"yesterday": "昨天"}}

MODS = ("none", "adj", "pp", "of")
TIME_KINDS = ("none", "habit", "future", "past")
# A template: ("svo", subject modifier, object modifier, place adverbial?, time kind), or
# ("loc" | "where" | "yn", subject modifier) for "X is near Y." / "where is X?" / "is X near Y?".
SVO = [("svo", s, o, p, t) for s, o, p, t in itertools.product(MODS, MODS, (False, True), TIME_KINDS)]
SHORT = [(f, s) for f in ("loc", "where", "yn") for s in MODS]
HELDOUT_TEMPLATES = [("svo", "pp", "of", False, "habit"), ("svo", "adj", "pp", True, "none"),
                     ("svo", "of", "adj", True, "past"), ("svo", "none", "pp", True, "future"),
                     ("svo", "pp", "none", False, "past"), ("svo", "of", "pp", False, "none"),
                     ("where", "pp"), ("yn", "of")]
TRAIN_TEMPLATES = [t for t in SVO + SHORT if t not in HELDOUT_TEMPLATES]
# Word combinations never seen in training (head noun + place of its phrase, adjective + noun, verb + object).
HELDOUT_PP = {("restaurant", "station"), ("student", "library"), ("cake", "market"), ("doctor", "park"),
              ("umbrella", "hotel"), ("museum", "bridge")}
HELDOUT_ADJ = {("quiet", "park"), ("young", "nurse"), ("red", "bike"), ("famous", "museum")}
HELDOUT_VERB_OBJ = {("buys", "umbrella"), ("cleans", "library"), ("thanks", "farmer")}
HELDOUT_PER_TEMPLATE = 40
HELDOUT_COMBO_PAIRS = 200


@dataclass
class Pair:
    """One sentence pair; `combos` lists the word combinations it uses (for the held-out split)."""
    en: str
    zh: str
    template: tuple
    combos: frozenset


def _noun_phrase(rng: random.Random, kind: str, mod: str, combos: set) -> tuple[str, str, str]:
    """(English, Chinese, head noun) of one noun phrase of a kind ("person" | "thing" | "place")."""
    if mod == "of":        # the sister of the nurse -> 护士的姐姐 (always about people)
        rel, owner = rng.choice(list(RELATIVES)), rng.choice(list(PEOPLE))
        return f"the {rel} of the {owner}", f"{PEOPLE[owner]}的{RELATIVES[rel]}", rel
    table = {"person": PEOPLE, "thing": THINGS, "place": {k: v[1] for k, v in PLACES.items()}}[kind]
    noun = rng.choice(list(table))
    if mod == "adj":
        adjs = PERSON_ADJ if kind == "person" else THING_ADJ
        adj = rng.choice(list(adjs))
        combos.add(("adj", adj, noun))
        return f"the {adj} {noun}", f"{adjs[adj]}{table[noun]}", noun
    if mod == "pp":        # the restaurant near the station -> 车站附近的餐厅
        prep, place = rng.choice(list(PREPS)), rng.choice([p for p in PLACES if p != noun])
        combos.add(("pp", noun, place))
        return f"the {noun} {prep} the {place}", f"{PLACES[place][1]}{PREPS[prep]}的{table[noun]}", noun
    return f"the {noun}", table[noun], noun


def sample(rng: random.Random, template: tuple) -> Pair:
    """One sentence pair drawn from a template."""
    combos: set = set()
    if template[0] != "svo":
        form, smod = template
        s_en, s_zh, _ = _noun_phrase(rng, rng.choice(["person", "thing", "place"]), smod, combos)
        if form == "where":
            return Pair(f"where is {s_en} ?", f"{s_zh}在哪里？", template, frozenset(combos))
        prep, place = rng.choice(list(PREPS)), rng.choice(list(PLACES))
        p_zh = f"{PLACES[place][1]}{PREPS[prep]}"
        if form == "loc":
            return Pair(f"{s_en} is {prep} the {place} .", f"{s_zh}在{p_zh}。", template, frozenset(combos))
        return Pair(f"is {s_en} {prep} the {place} ?", f"{s_zh}在{p_zh}吗？", template, frozenset(combos))
    _, smod, omod, with_place, time_kind = template
    s_en, s_zh, _ = _noun_phrase(rng, "person", smod, combos)
    kinds = ["person", "thing"] if with_place else ["person", "thing", "place"]   # no "cleans the bank in the park"
    okind = "person" if omod == "of" else rng.choice(kinds)
    o_en, o_zh, obj = _noun_phrase(rng, okind, omod, combos)
    s3, base, past, v_zh = rng.choice(VERBS[okind])
    combos.add(("verb", s3, obj))
    en_verb, zh_verb = {"none": (s3, v_zh), "habit": (s3, v_zh), "future": (f"will {base}", v_zh),
                        "past": (past, f"{v_zh}了")}[time_kind]
    en = [s_en, en_verb, o_en]
    zh_pre = ""
    if with_place:
        place = rng.choice(list(PLACES))
        en.append(f"{PLACES[place][0]} the {place}")
        zh_pre = f"在{PLACES[place][1]}"
    t_zh = ""
    if time_kind != "none":
        t_en, t_zh = rng.choice(list(TIMES[time_kind].items()))
        en.append(t_en)
    will = "会" if time_kind == "future" else ""
    return Pair(" ".join(en) + " .", f"{s_zh}{t_zh}{will}{zh_pre}{zh_verb}{o_zh}。", template, frozenset(combos))


def is_heldout_combo(pair: Pair) -> bool:
    for kind, a, b in pair.combos:
        if (kind == "pp" and (a, b) in HELDOUT_PP) or (kind == "adj" and (a, b) in HELDOUT_ADJ) \
                or (kind == "verb" and (a, b) in HELDOUT_VERB_OBJ):
            return True
    return False


def train_pair(rng: random.Random) -> Pair:
    """A training pair: a training template, no held-out word combination."""
    while True:
        pair = sample(rng, rng.choice(TRAIN_TEMPLATES))
        if not is_heldout_combo(pair):
            return pair


def heldout_pairs(seed: int = 1234) -> list[Pair]:
    """The fixed evaluation set: sentences of held-out templates, then training-template sentences
    that use a held-out word combination (each distinct)."""
    return heldout_set(sample, HELDOUT_TEMPLATES, HELDOUT_PER_TEMPLATE, TRAIN_TEMPLATES, is_heldout_combo,
                       HELDOUT_COMBO_PAIRS, seed)


def heldout_set(draw, templates, per_template: int, train_templates, is_combo, combo_pairs: int,
                seed: int) -> list[Pair]:
    """per_template distinct pairs draw(rng, template) of each held-out template, then combo_pairs distinct pairs of
    training templates that use a held-out word combination (is_combo(pair)), from random.Random(seed)."""
    rng = random.Random(seed)
    out, seen = [], set()
    for template in templates:
        n = 0
        while n < per_template:
            pair = draw(rng, template)
            if pair.en not in seen:
                seen.add(pair.en)
                out.append(pair)
                n += 1
    n = 0
    while n < combo_pairs:
        pair = draw(rng, rng.choice(train_templates))
        if is_combo(pair) and pair.en not in seen:
            seen.add(pair.en)
            out.append(pair)
            n += 1
    return out


def all_words_en() -> list[str]:
    """Every English text piece the grammar can use (for the vocabulary)."""
    pieces = ["the", "of", "is", "where", "will", ".", "?"] + list(PEOPLE) + list(RELATIVES) + list(THINGS)
    pieces += list(PLACES) + list(PERSON_ADJ) + list(THING_ADJ) + list(PREPS) + ["in", "at"]
    pieces += [w for vs in VERBS.values() for v in vs for w in v[:3]]
    pieces += [t for ts in TIMES.values() for t in ts]
    return pieces


def all_text_zh() -> list[str]:
    """Every Chinese string the grammar can emit (for the character vocabulary)."""
    texts = list(PEOPLE.values()) + list(RELATIVES.values()) + list(THINGS.values()) + [v[1] for v in PLACES.values()]
    texts += list(PERSON_ADJ.values()) + list(THING_ADJ.values()) + list(PREPS.values())
    texts += [v[3] for vs in VERBS.values() for v in vs] + [t for ts in TIMES.values() for t in ts.values()]
    return texts + ["的在会了吗哪里。？"]


def examples() -> list[Pair]:
    """A few held-out pairs for the page, one per held-out template plus word combinations."""
    pairs = heldout_pairs()
    firsts = [pairs[i * HELDOUT_PER_TEMPLATE] for i in range(len(HELDOUT_TEMPLATES))]
    return firsts + pairs[len(HELDOUT_TEMPLATES) * HELDOUT_PER_TEMPLATE:][:6]
