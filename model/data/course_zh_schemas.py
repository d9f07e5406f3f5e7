"""The Chinese course world's Winograd-style schemas (Levesque et al. 2012): two noun classes each, the predicates
that fit each class, and frames in which the predicate after the pronoun, never the word order, decides its
referent: 奖杯放不进箱子，因为它太大了 (the trophy) / 太小了 (the box). In the people schema both candidates are of
one gender, so 他 or 她 fits either and only the predicate decides; its people are the training split's
(model/data/course_zh_people.py).

Noun pairs are divided train / val / held-out and two frames per schema are held out, as in the English schemas
(model/data/course_schemas.py); the classic pairs (奖杯 / 箱子, 小猫 / 马路) are always held out.
Frames are written with slots {a}, {b} (the two nouns, in either order), {pr} (the pronoun) and {p} (the predicate).
"""
import functools
import random
from dataclasses import dataclass

from model.data.course_zh_people import lexicon


@dataclass(frozen=True)
class ZhSchema:
    """Two noun classes, the predicates that fit each, the frames, and the pronoun ("它", or "" when the nouns are
    people and the pronoun is 他 / 她 by their gender)."""
    a_nouns: tuple
    b_nouns: tuple
    a_preds: tuple
    b_preds: tuple
    frames: tuple
    pronoun: str = "它"


# the people schema's men and women: the training split's names and gendered nouns only, so the agreement
# sentences' held-out names (model/data/course_zh_agreement.py) never occur in a training sentence
_MEN = lexicon("train").male_names + lexicon("train").male_nouns
_WOMEN = lexicon("train").female_names + lexicon("train").female_nouns

SCHEMAS = {
    "object_container": ZhSchema(
        a_nouns=("奖杯", "课本", "电脑", "台灯", "花瓶", "吉他", "足球", "雕像", "枕头", "瓶子", "画框", "头盔", "水壶",
                 "玩具", "闹钟", "相机", "南瓜", "被子", "篮球", "毛毯", "蛋糕", "鱼缸", "风扇", "鞋盒"),
        b_nouns=("箱子", "盒子", "袋子", "抽屉", "篮子", "柜子", "背包", "书包", "行李箱", "水桶", "衣柜", "罐子",
                 "纸箱", "口袋", "车厢", "后备箱", "保险箱", "木箱", "塑料袋", "购物袋", "铁盒", "竹篮", "快递箱",
                 "箩筐"),
        a_preds=("太大了", "太高了", "太宽了", "太长了", "太粗了", "太厚了", "个头太大", "实在太大", "比想象的大",
                 "太占地方"),
        b_preds=("太小了", "太窄了", "太浅了", "已经满了", "太短了", "太矮了", "被锁上了", "装满了东西",
                 "口太小了", "里面太挤了"),
        frames=("{a}放不进{b}，因为{pr}{p}。",
                "{a}装不进{b}里，因为{pr}{p}。",
                "我没法把{a}放进{b}，因为{pr}{p}。",
                "妈妈想把{a}塞进{b}，可是{pr}{p}。",
                "{b}装不下{a}，因为{pr}{p}。",
                "{b}放不下{a}，因为{pr}{p}。",
                "他没能把{a}装进{b}里，因为{pr}{p}。",
                "{a}塞不进{b}，因为{pr}{p}。")),
    "animal_place": ZhSchema(
        a_nouns=("小猫", "小狗", "兔子", "山羊", "小羊", "鸭子", "狐狸", "小鹿", "猴子", "熊猫", "乌龟", "松鼠",
                 "刺猬", "老鼠", "小猪", "奶牛", "小马", "骆驼", "大象", "企鹅", "袋鼠", "小鸡", "鹅", "驴"),
        b_nouns=("马路", "街道", "大街", "小河", "桥", "公路", "山坡", "草地", "铁路", "小溪", "广场", "田埂",
                 "水沟", "胡同", "山谷", "河沟", "冰面", "沙滩", "泥潭", "高速公路", "独木桥", "稻田", "树林", "操场"),
        a_preds=("太累了", "太害怕了", "太老了", "受伤了", "太懒了", "太困了", "太饿了", "走得太慢", "脚扭伤了",
                 "太虚弱了"),
        b_preds=("太宽了", "太长了", "太滑了", "正在修", "被淹了", "太黑了", "太陡了", "结冰了", "太泥泞了",
                 "被堵住了"),
        frames=("{a}没有过{b}，因为{pr}{p}。",
                "{a}没有走过{b}，因为{pr}{p}。",
                "{a}不敢靠近{b}，因为{pr}{p}。",
                "{a}不肯走上{b}，因为{pr}{p}。",
                "主人把{a}从{b}边上牵走了，因为{pr}{p}。",
                "{b}拦住了{a}，因为{pr}{p}。",
                "{a}在{b}前面停了下来，因为{pr}{p}。",
                "{a}绕开了{b}，因为{pr}{p}。")),
    "venue_dish": ZhSchema(
        a_nouns=("餐厅", "饭店", "餐馆", "咖啡馆", "面包店", "食堂", "小吃店", "面馆", "快餐店", "饭馆", "茶馆",
                 "酒吧", "饺子馆", "火锅店", "咖啡店", "甜品店", "烧烤店", "西餐厅", "大排档", "包子铺", "蛋糕店",
                 "米粉店", "面包房", "寿司店"),
        b_nouns=("三明治", "汤", "沙拉", "披萨", "汉堡", "蛋糕", "面条", "炒饭", "饺子", "包子", "牛排", "咖喱",
                 "粥", "煎饼", "馄饨", "寿司", "烤鸭", "米线", "凉皮", "春卷", "馒头", "炒面", "汤圆", "油条"),
        a_preds=("只做素菜", "太忙了", "没有空位了", "快要关门了", "人手不够", "只卖外卖", "换了新厨师", "正在装修",
                 "原料用完了", "今天不营业"),
        b_preds=("太咸了", "已经凉了", "烤焦了", "不新鲜了", "太辣了", "没什么味道", "没煮熟", "有股怪味", "太油了",
                 "里面有肉"),
        frames=("{a}不肯给我做{b}，因为{pr}{p}。",
                "{a}没有卖给我们{b}，因为{pr}{p}。",
                "我没在{a}点{b}，因为{pr}{p}。",
                "朋友没吃{a}送来的{b}，因为{pr}{p}。",
                "我们把{b}退回了{a}，因为{pr}{p}。",
                "{a}的{b}让我们很失望，因为{pr}{p}。",
                "{a}把{b}从菜单上撤掉了，因为{pr}{p}。",
                "大家都没吃{a}的{b}，因为{pr}{p}。")),
    "people_help": ZhSchema(
        a_nouns=_MEN + _WOMEN,
        b_nouns=_MEN + _WOMEN,
        a_preds=("不会修电脑", "搬不动那个柜子", "看不懂说明书", "不认识路", "手受伤了", "不会做饭", "数学不好",
                 "刚来这个城市", "没带钥匙", "刚做完手术"),
        b_preds=("很会修电脑", "力气很大", "懂得很多", "对这一带很熟", "很有经验", "那天正好休息", "做饭做得很好",
                 "数学很好", "以前学过", "心肠很好"),
        frames=("{a}去找{b}帮忙，因为{pr}{p}。",
                "{a}请{b}帮忙，因为{pr}{p}。",
                "{a}打电话向{b}求助，因为{pr}{p}。",
                "{b}帮了{a}一个大忙，因为{pr}{p}。",
                "{a}只好麻烦{b}，因为{pr}{p}。",
                "{b}主动去帮{a}，因为{pr}{p}。",
                "{a}一遇到困难就找{b}，因为{pr}{p}。",
                "{b}经常帮助{a}，因为{pr}{p}。"),
        pronoun=""),
}
HELDOUT_FRAMES = {"object_container": (2, 7), "animal_place": (2, 6), "venue_dish": (3, 6), "people_help": (2, 6)}
CLASSIC_PAIRS = {("奖杯", "箱子"), ("小猫", "马路")}
_GENDER = {w: "m" for w in _MEN} | {w: "f" for w in _WOMEN}


def pronoun(name: str, a: str) -> str:
    """The pronoun a schema's sentence uses: 它, or 他 / 她 by the gender of the people schema's nouns."""
    return SCHEMAS[name].pronoun or {"m": "他", "f": "她"}[_GENDER[a]]


def _all_pairs(name: str) -> list[tuple[str, str]]:
    s = SCHEMAS[name]
    if s.pronoun:
        return [(a, b) for a in s.a_nouns for b in s.b_nouns]
    return [(a, b) for a in s.a_nouns for b in s.b_nouns if a != b and _GENDER[a] == _GENDER[b]]


@functools.cache
def _pair_splits(name: str) -> dict[str, tuple[tuple[str, str], ...]]:
    pairs = _all_pairs(name)
    random.Random(f"zh-pairs-{name}").shuffle(pairs)
    classic = [p for p in pairs if p in CLASSIC_PAIRS]
    rest = [p for p in pairs if p not in CLASSIC_PAIRS]
    n_held, n_val = int(0.2 * len(pairs)) - len(classic), int(0.1 * len(pairs))
    return {"heldout": tuple(classic + rest[:n_held]), "val": tuple(rest[n_held:n_held + n_val]),
            "train": tuple(rest[n_held + n_val:])}


def pair_splits(name: str) -> dict[str, list[tuple[str, str]]]:
    """All (a, b) noun pairs of a schema split into train (70%), val (10%), heldout (20%)."""
    return {k: list(v) for k, v in _pair_splits(name).items()}


def split_spec(split: str, name: str) -> tuple[list[tuple[str, str]], list[int]]:
    """(pairs, frames) a split draws from: val / heldout_pairs use the training frames, heldout_frames the training
    pairs with the held-out frames."""
    pairs, held = _pair_splits(name), list(HELDOUT_FRAMES[name])
    frames = [i for i in range(len(SCHEMAS[name].frames)) if i not in held]
    return {"train": (list(pairs["train"]), frames), "val": (list(pairs["val"]), frames),
            "heldout_pairs": (list(pairs["heldout"]), frames), "heldout_frames": (list(pairs["train"]), held)}[split]
