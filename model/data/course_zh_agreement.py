"""Chinese course-world sentences whose pronoun is settled by its own character or by syntax, not by world
knowledge: gender and animacy (小红给小明打电话，因为她生病了 -> 小红; 他 a man, 她 a woman, 它 a thing or an
animal, 她们 a group of women), number (那只狗在那些箱子旁边，它们很旧了 -> 箱子; 它 one, 它们 / 他们 several) and
structure: a plain pronoun in a clause controlled by the object points at the main subject (小明让小刚帮他搬箱子 ->
小明), after 答应 (promise) the subject controls and the pronoun points at the object (小明答应小刚帮他搬箱子 -> 小刚),
and an object pronoun never takes its own clause's subject (小明担心小刚会责怪他 -> 小明).

Every frame writes its candidates in either order; flipping the pronoun's character (gender, number) or the control
verb (structure) flips the referent, which gives the minimal pairs of the evaluation splits. Splits as the English
agreement sentences' (model/data/course_agreement.py): "val" and "heldout_pairs" draw names and nouns training never
saw (model/data/course_zh_people.py) in the training frames, "heldout_frames" draws training names and nouns in two
held-out frames per cue.
"""
import random

from model.data import course_zh_people as people
from model.data.course_people import Mention
from model.data.course_samples import CUES, Ref, Sample
from model.data.course_zh_people import PRONOUN_OF, Lexicon
from model.data.course_zh_words import words_and_spans

PEOPLE_PREDS = (
    "迟到了", "很累", "很着急", "需要帮助", "有个好消息", "想聊聊天", "觉得很孤单", "错过了末班车", "有个问题",
    "丢了钱包", "要离开这座城市", "得了奖", "生病了", "很忙", "忘了地址", "遇到了麻烦", "需要搭车去机场",
    "找到了新工作", "要去外地出差", "刚度假回来", "饿了", "觉得无聊", "买了一顶新帽子", "要晚点到")
# predicates that fit people, animals and things alike, so only the pronoun's number decides
NUMBER_PREDS = (
    "很旧了", "挡住了路", "很难看见", "还在外面", "落满了灰", "湿透了", "离得太远", "在那里待了一整天", "很安静",
    "看起来很奇怪", "在树荫下", "盖满了雪", "已经在那儿了", "越来越冷", "在照片里", "第二天早上还在那儿")
# gender frames: slots {a}, {b} (the candidates), {pr} the pronoun, {q} a predicate, {t} a thing; the kinds of
# candidates each takes: "people" (a man and a woman, or a group of men and a group of women) or "any" (also a
# person and a thing or an animal: 他 / 她 against 它)
GENDER_FRAMES = (
    ("{a}给{b}打了电话，因为{pr}{q}。", "people"),
    ("{a}去看望{b}，因为{pr}{q}。", "people"),
    ("{a}在门口等{b}，因为{pr}{q}。", "people"),
    ("{a}给{b}写了一封信，因为{pr}{q}。", "people"),
    ("{a}和{b}在车站见了面，{pr}{q}。", "people"),
    ("{a}对{b}笑了笑，因为{pr}{q}。", "people"),
    ("{a}跟{b}说话，可是{pr}{q}。", "people"),
    ("{a}告诉{b}，{pr}{q}。", "people"),
    ("因为{pr}{q}，{a}给{b}打了电话。", "people"),
    ("{a}把{pr}的{t}借给了{b}。", "people"),
    ("{a}给{b}看了{pr}的新{t}。", "people"),
    ("{a}在车站接到了{b}，大家都向{pr}跑了过去。", "people"),
    ("{a}坐在{b}旁边，有人给{pr}端来了一碗热汤。", "people"),
    ("{a}和{b}都在院子里，{pr}{n}。", "any"),
    ("{a}待在{b}旁边，{pr}{n}。", "any"),
    ("我在{b}旁边找到了{a}，{pr}{n}。", "any"),
)
# number frames: slots {x}, {y} with the kinds of mention each takes, {q} a predicate
NUMBER_FRAMES = (
    ("{x}在{y}旁边，{pr}{q}。", "any", "any"),
    ("我在{y}附近看见了{x}，{pr}{q}。", "any", "any"),
    ("我们把{x}留在了{y}旁边，可是{pr}{q}。", "nonhuman", "thing"),
    ("{x}在{y}后面，所以{pr}{q}。", "any", "any"),
    ("{x}靠着{y}，{pr}{q}。", "any", "any"),
    ("{x}一直守着{y}，因为{pr}{q}。", "agent", "any"),
    ("{x}卖掉了{y}，因为{pr}{q}。", "people", "nonhuman"),
    ("{x}在喂{y}，因为{pr}{q}。", "people", "animal"),
    ("{x}在{y}旁边站着，直到有人把{pr}挪开了。", "nonhuman", "any"),
    ("我们在{y}附近找到了{x}，还给{pr}拍了照。", "any", "any"),
    ("没人注意到{y}后面的{x}，于是我指了指{pr}。", "any", "any"),
    ("{x}在{y}旁边，{pr}的影子很长。", "any", "any"),
    ("我们给{x}和{y}画了一张画，可是{pr}的颜色画错了。", "any", "any"),
)
# predicates for a person against a thing or an animal (gender frames of kind "any")
ANY_PREDS = ("在那里待了一整天", "很安静", "看起来很奇怪", "湿透了", "离得太远", "在照片里", "还在外面", "在树荫下")
# structure frames: {a} the main subject, {b} the object, {v} the control verb of the pair ("让" or "答应") or a
# verb of saying; where the pronoun points with an object-control verb and with 答应 ("-": the frame has no
# 答应 side: the pronoun cannot take its own clause's subject whatever the verb)
CONTROL_TASKS = ("搬箱子", "修电动车", "买一张火车票", "找钥匙", "照看小猫", "复印材料", "寄一封信", "收拾房间",
                 "浇花", "取快递", "占个座位", "订一张桌子", "写一封推荐信", "挑一件礼物")
OBJECT_CONTROL = ("让", "叫", "请", "求", "托", "嘱咐", "提醒")
SUBJECT_CONTROL = ("答应",)
STRUCTURE_FRAMES = (
    ("{a}{v}{b}帮{pr}{task}。", "a", "b"),
    ("{a}{v}{b}下班后顺路捎上{pr}。", "a", "b"),
    ("{a}{v}{b}晚上给{pr}发短信。", "a", "b"),
    ("{a}{v}{b}早点叫醒{pr}。", "a", "b"),
    ("{a}{v}{b}陪{pr}去看展览。", "a", "b"),
    ("{a}{v}{b}下午去车站送{pr}。", "a", "b"),
    ("{a}{v}{b}给{pr}带一杯咖啡。", "a", "b"),
    ("{a}怀疑{b}在偷偷模仿{pr}。", "a", "-"),
    ("{a}担心{b}会责怪{pr}。", "a", "-"),
    ("{a}发现{b}一直在偷偷观察{pr}。", "a", "-"),
    ("{a}相信{b}不会出卖{pr}。", "a", "-"),
)
HELDOUT_FRAMES = {"gender": (4, 11), "number": (3, 10), "structure": (2, 8)}
FRAMES = {"gender": GENDER_FRAMES, "number": NUMBER_FRAMES, "structure": STRUCTURE_FRAMES}
SPLITS = ("train", "val", "heldout_pairs", "heldout_frames")


def split_spec(split: str, cue: str) -> tuple[Lexicon, list[int]]:
    """(lexicon, frame indices) a split draws from: val / heldout_pairs use unseen words in the training frames,
    heldout_frames the training words in the held-out frames."""
    if split not in SPLITS or cue not in CUES:
        raise ValueError(f"split must be one of {SPLITS} and cue one of {CUES}, got {split!r} and {cue!r}")
    held = HELDOUT_FRAMES[cue]
    frames = [i for i in range(len(FRAMES[cue])) if i not in held]
    words = {"train": "train", "val": "val", "heldout_pairs": "heldout", "heldout_frames": "train"}[split]
    return people.lexicon(words), list(held) if split == "heldout_frames" else frames


def build(cue: str, frame: int, template: str, slots: dict[str, Mention], pron: str, antecedent: str,
          fills: dict, key: str) -> Sample | None:
    """The sentence with its one reference, or None when two candidates share their head word or jieba does not cut
    the sentence as written: the pronoun is not a word of its own at its slot, or a candidate's head is not exactly
    one word of the sentence (the reference would be ambiguous or point inside a word). key: what both sides of a
    minimal pair share besides the frame and the candidates (it joins the pair_id)."""
    fills = {k: v for k, v in fills.items() if "{" + k + "}" in template}
    values = {k: m.text for k, m in slots.items()} | fills
    before, after = template.split("{pr}")
    head_text = before.format(**values)
    text = head_text + pron + after.format(**values)
    words, spans = words_and_spans(text)
    at = next((i for i, (a, b) in enumerate(spans) if a == len(head_text)), None)
    heads = [m.head for m in slots.values()]
    if at is None or words[at] != pron or len(set(heads)) < len(heads) or any(words.count(h) != 1 for h in heads):
        return None
    order = tuple(sorted(heads, key=words.index))
    head = slots[antecedent].head
    pair_id = f"zh-{cue}|{frame}|{'|'.join(order)}|{key}"
    return Sample(text, (Ref(at, words.index(head), pron, head),), "", frame, order, pair_id, cue)


def _mention(kind: str, lex: Lexicon, rng: random.Random) -> Mention:
    """A mention of a kind of people.PRONOUN_OF: "m" / "f" a person, "gm" / "gf" a group, "sg" / "pl" things or
    animals."""
    if kind in ("m", "f"):
        return people.person(kind, lex, rng)
    if kind in ("gm", "gf"):
        return people.group(kind, lex, rng)
    return people.thing(kind, lex, rng)


def gender_sentences(frame: int, lex: Lexicon, rng: random.Random, first: str) -> list[Sample | None]:
    """Both sides of one gender minimal pair: {a} of kind `first`, {b} of the other kind of the frame's pairing
    (a man and a woman, a group of men and one of women, or a person and a thing), the pronoun of each in turn."""
    template, takes = GENDER_FRAMES[frame]
    other = {"m": "f", "f": "m", "gm": "gf", "gf": "gm", "sg": rng.choice("mf")}[first]
    if takes == "any" and first in ("m", "f"):
        other = "sg"
    kinds = {"a": first, "b": other}
    slots = {k: _mention(kind, lex, rng) for k, kind in kinds.items()}
    fills = {"q": rng.choice(PEOPLE_PREDS), "n": rng.choice(ANY_PREDS), "t": rng.choice(lex.things)[0]}
    key = "|".join(fills.values())
    return [build("gender", frame, template, slots, PRONOUN_OF[kinds[k]], k, fills, key) for k in ("a", "b")]


def _number_mention(slot_kind: str, number: str, lex: Lexicon, rng: random.Random) -> Mention | None:
    """A singular ("sg") or plural ("pl") mention a number slot of kind slot_kind takes (a group of people is
    plural only), or None."""
    options = {"people": ("people",), "thing": ("thing",), "animal": ("animal",), "nonhuman": ("thing", "animal"),
               "agent": ("people", "animal"), "any": ("people", "thing", "animal")}[slot_kind]
    options = [o for o in options if not (o == "people" and number == "sg")]
    if not options:
        return None
    pick = rng.choice(options)
    if pick == "people":
        return people.group("gm", lex, rng)
    return people.thing(number, lex, rng, animate=pick == "animal")


def number_sentences(frame: int, lex: Lexicon, rng: random.Random, x_number: str) -> list[Sample | None]:
    """Both sides of one number minimal pair: 它 for the singular candidate, then 它们 (他们 for a group of people)
    for the plural one; x is singular when x_number == "sg"."""
    template, x_kind, y_kind = NUMBER_FRAMES[frame]
    y_number = "pl" if x_number == "sg" else "sg"
    slots = {"x": _number_mention(x_kind, x_number, lex, rng), "y": _number_mention(y_kind, y_number, lex, rng)}
    if None in slots.values():
        return [None, None]
    fills = {"q": rng.choice(NUMBER_PREDS)}
    out = []
    for number in ("sg", "pl"):
        ante = "x" if x_number == number else "y"
        pron = "他们" if slots[ante].kind == "gm" else PRONOUN_OF[number]
        out.append(build("number", frame, template, slots, pron, ante, fills, fills["q"]))
    return out


def structure_sentences(frame: int, lex: Lexicon, rng: random.Random, kind: str) -> list[Sample | None]:
    """Both sides of one structure minimal pair, the candidates both of `kind` ("m", "f", "gm" or "gf"): an
    object-control verb (让, 叫, 请, 求, 托, 嘱咐, 提醒), then 答应; the second is None when the frame has no 答应
    side."""
    template, obj_to, subj_to = STRUCTURE_FRAMES[frame]
    slots = {"a": _mention(kind, lex, rng), "b": _mention(kind, lex, rng)}
    fills = {"task": rng.choice(CONTROL_TASKS)}
    key = fills["task"]
    pron = PRONOUN_OF[kind]
    first = build("structure", frame, template, slots, pron, obj_to, {**fills, "v": rng.choice(OBJECT_CONTROL)}, key)
    if subj_to == "-":
        return [first, None]
    return [first, build("structure", frame, template, slots, pron, subj_to, {**fills, "v": "答应"}, key)]


# the kinds each cue's first slot is drawn with
FIRST_KINDS = {"gender": ("m", "f", "m", "f", "gm", "gf", "sg"), "number": ("sg", "pl"),
               "structure": ("m", "f", "m", "f", "gm", "gf")}


def draw(cue: str, split: str, rng: random.Random, complete: bool = True) -> list[Sample]:
    """The sides of one minimal pair of a cue drawn from a split (retrying draws a frame or jieba cannot take);
    with complete=False a draw with one side only (a frame without a 答应 side) is kept too."""
    lex, frames = split_spec(split, cue)
    for _ in range(200):
        frame, first = rng.choice(frames), rng.choice(FIRST_KINDS[cue])
        if cue == "gender":
            if first == "sg" and GENDER_FRAMES[frame][1] != "any":
                continue
            sides = gender_sentences(frame, lex, rng, first)
        elif cue == "number":
            sides = number_sentences(frame, lex, rng, first)
        else:
            sides = structure_sentences(frame, lex, rng, first)
        kept = [s for s in sides if s is not None]
        if len(kept) == 2 or (kept and not complete):
            return kept
    raise RuntimeError(f"no {cue} pair could be drawn from {split}")


def training_sample(cue: str, rng: random.Random) -> Sample:
    """One training sentence of a cue: one side of a draw from the training split."""
    return rng.choice(draw(cue, "train", rng, complete=False))


def eval_pairs(cue: str, split: str, n_pairs: int, seed: int = 0) -> list[Sample]:
    """Both sides of n_pairs minimal pairs of one cue (not "train"): 2 * n_pairs samples, sides adjacent."""
    if split == "train":
        raise ValueError("eval_pairs is for val / heldout_pairs / heldout_frames")
    rng = random.Random(f"zh-agreement-{cue}-{split}-{seed}")
    return [s for _ in range(n_pairs) for s in draw(cue, split, rng)]
