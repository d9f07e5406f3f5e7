"""Who and what the Chinese course world is about: given names and kinship nouns whose gender Chinese marks (小红,
妈妈 take 她; 小明, 哥哥 take 他), groups of people (孩子们 takes 他们, 女孩们 takes 她们), and things and animals (它,
它们). Written Chinese tells 他 / 她 / 它 apart where speech says tā for all three, so the pronoun's character alone
can settle its antecedent.

Every list is split train / val / held-out (70 / 10 / 20 %, a fixed shuffle per list, as model/data/course_people.py
splits the English one): held-out sentences use names and nouns that no training sentence has. Every word here is
one word as jieba cuts it in the course world's sentences (model/data/course_world_zh.py refuses a sentence where
it is not).
"""
import functools
import random
from dataclasses import dataclass

from model.data.course_people import Mention, split_words_of

FEMALE_NAMES = (
    "小红", "小丽", "小芳", "小美", "丽丽", "芳芳", "婷婷", "晓燕", "秀英", "桂兰", "玉兰", "美玲", "淑芬", "丽娟",
    "雪梅", "海燕", "春花", "红梅", "慧敏", "静怡", "佳怡", "欣怡", "雨婷", "小燕", "小雪", "小玲", "小梅", "莉莉",
    "娜娜", "琳琳", "丹丹", "萍萍", "晶晶", "玲玲", "月季", "翠兰", "秀兰", "凤英")
MALE_NAMES = (
    "小明", "小刚", "小强", "小伟", "小龙", "小虎", "大伟", "大勇", "建国", "志强", "建华", "志明", "海涛", "俊杰",
    "浩然", "子轩", "宇航", "晓东", "建军", "家豪", "国华", "永强", "明辉", "志刚", "海军", "文斌", "振华", "德明",
    "小杰", "小东", "大山", "铁柱", "国庆", "建平", "卫东", "立新", "天明", "学军")
# (male, female) nouns whose referent's gender Chinese marks
GENDERED_NOUNS = (
    ("爸爸", "妈妈"), ("哥哥", "姐姐"), ("弟弟", "妹妹"), ("爷爷", "奶奶"), ("外公", "外婆"), ("叔叔", "阿姨"),
    ("儿子", "女儿"), ("丈夫", "妻子"), ("男孩", "女孩"), ("孙子", "孙女"), ("国王", "王后"), ("王子", "公主"),
    ("新郎", "新娘"), ("舅舅", "舅妈"), ("伯伯", "伯母"), ("侄子", "侄女"), ("男生", "女生"), ("父亲", "母亲"),
    ("老爷爷", "老奶奶"), ("小伙子", "姑娘"), ("男孩子", "女孩子"), ("和尚", "尼姑"), ("姥爷", "姥姥"))
# groups written noun + 们 (jieba cuts 孩子们 into 孩子 / 们; the head is the noun): all-female groups take 她们,
# all-male and mixed groups 他们; none is a gendered noun above, so a held-out noun stays unseen in training
FEMALE_GROUPS = ("姐妹", "太太", "小姐", "女工", "婆婆", "大妈", "大婶", "少女", "女兵", "修女", "女演员", "妇女",
                 "女同学")
MALE_GROUPS = ("兄弟", "先生", "大爷", "男人", "小伙", "男工", "汉子", "大叔", "老头", "男演员", "男同学", "老汉",
               "绅士", "渔夫")
MIXED_GROUPS = (
    "孩子", "学生", "老师", "同学", "朋友", "工人", "农民", "医生", "护士", "家长", "客人", "游客", "乘客", "司机",
    "旅客", "队员", "村民", "顾客", "记者", "警察", "演员", "厨师", "士兵", "科学家", "工程师", "商人", "画家", "歌手",
    "球迷", "志愿者")
# (noun, classifier): things and animals, written 那只猫 / 几只猫, 那个镜子 / 那些镜子; none is a schema noun
# (model/data/course_zh_schemas.py) or a word of a sentence frame, so a held-out one stays unseen in training
THINGS = (
    ("钢琴", "架"), ("窗户", "扇"), ("椅子", "把"), ("手机", "部"), ("床垫", "张"), ("收音机", "台"), ("信件", "封"),
    ("地图", "张"), ("火车", "列"), ("小船", "条"), ("房子", "座"), ("大树", "棵"), ("石头", "块"), ("毯子", "条"),
    ("外套", "件"), ("梯子", "架"), ("帐篷", "顶"), ("卡车", "辆"), ("长椅", "张"), ("沙发", "张"), ("镜子", "面"),
    ("地毯", "块"), ("包裹", "个"), ("雨伞", "把"), ("自行车", "辆"), ("拖拉机", "台"), ("盘子", "个"), ("刀", "把"),
    ("勺子", "把"), ("杂志", "本"), ("蜡烛", "根"), ("铅笔", "支"), ("硬币", "枚"), ("鸡蛋", "个"), ("苹果", "个"),
    ("花盆", "个"), ("袜子", "只"), ("手套", "只"), ("鞋子", "只"), ("衬衫", "件"), ("围巾", "条"), ("水缸", "口"),
    ("打印机", "台"), ("书桌", "张"), ("书架", "个"), ("毛巾", "条"), ("锤子", "把"), ("绳子", "根"), ("轮子", "个"),
    ("风筝", "只"), ("气球", "个"), ("信封", "个"), ("笔记本", "个"), ("报纸", "份"), ("海报", "张"), ("茶壶", "个"),
    ("杯子", "个"), ("戒指", "枚"), ("手表", "块"), ("木桶", "个"), ("板凳", "条"), ("垫子", "个"), ("窗帘", "块"),
    ("灯笼", "盏"), ("旗子", "面"), ("牌子", "块"), ("木板", "块"), ("砖头", "块"), ("铲子", "把"), ("扫帚", "把"),
    ("水杯", "个"), ("书签", "张"), ("凳子", "个"), ("饭盒", "个"), ("风铃", "个"))
ANIMALS = (
    ("狗", "只"), ("猫", "只"), ("黄牛", "头"), ("鸟", "只"), ("猪", "头"), ("猫头鹰", "只"), ("鹦鹉", "只"),
    ("蛇", "条"), ("青蛙", "只"), ("蜜蜂", "只"), ("蚂蚁", "只"), ("狼", "只"), ("鸡", "只"), ("狮子", "头"),
    ("老虎", "只"), ("小熊", "只"), ("长颈鹿", "只"), ("斑马", "匹"), ("海豹", "只"), ("鲸鱼", "头"), ("海豚", "只"),
    ("鲨鱼", "条"), ("乌鸦", "只"), ("老鹰", "只"), ("鸽子", "只"), ("天鹅", "只"), ("火鸡", "只"), ("公牛", "头"),
    ("蜘蛛", "只"), ("蝴蝶", "只"), ("蜗牛", "只"), ("螃蟹", "只"), ("金鱼", "条"), ("绵羊", "只"), ("孔雀", "只"),
    ("麻雀", "只"), ("燕子", "只"), ("河马", "头"), ("犀牛", "头"), ("野猪", "头"), ("水牛", "头"), ("仓鼠", "只"),
    ("海鸥", "只"), ("蝙蝠", "只"), ("梅花鹿", "头"))
SPLITS = ("train", "val", "heldout")
SINGULAR_DETERMINERS = ("那", "这", "那", "一")      # + classifier: 那只猫, 这个箱子, 一只猫
PLURAL_DETERMINERS = ("那些", "这些", "几", "两", "三", "好几")   # 那些 / 这些 + noun; a number + classifier + noun
# the pronoun of each kind of mention: a man, a woman, a thing or animal, several things or animals, a group of
# people (male or mixed), a group of women
PRONOUN_OF = {"m": "他", "f": "她", "sg": "它", "pl": "它们", "gm": "他们", "gf": "她们"}
PRONOUNS = tuple(PRONOUN_OF.values())


@dataclass(frozen=True)
class Lexicon:
    """The words one split draws from: names, gendered nouns, groups (nouns that take 们), things and animals with
    their classifiers."""
    female_names: tuple
    male_names: tuple
    female_nouns: tuple
    male_nouns: tuple
    female_groups: tuple
    male_groups: tuple
    mixed_groups: tuple
    things: tuple
    animals: tuple


@functools.cache
def lexicon(split: str) -> Lexicon:
    """The names and nouns of split "train", "val" or "heldout" (gendered nouns split as male/female pairs)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    pairs = split_words_of(GENDERED_NOUNS, "zh-gendered")[split]
    lists = {"female_names": FEMALE_NAMES, "male_names": MALE_NAMES, "female_groups": FEMALE_GROUPS,
             "male_groups": MALE_GROUPS, "mixed_groups": MIXED_GROUPS, "things": THINGS, "animals": ANIMALS}
    return Lexicon(female_nouns=tuple(f for _, f in pairs), male_nouns=tuple(m for m, _ in pairs),
                   **{k: split_words_of(v, f"zh-{k}")[split] for k, v in lists.items()})


def person(kind: str, lex: Lexicon, rng: random.Random, name_share: float = 0.6) -> Mention:
    """A man or a woman (kind "m" / "f"): a given name or a gendered noun, written bare (小红, 妈妈)."""
    if rng.random() < name_share:
        word = rng.choice(lex.male_names if kind == "m" else lex.female_names)
    else:
        word = rng.choice(lex.male_nouns if kind == "m" else lex.female_nouns)
    return Mention(word, word, kind)


def group(kind: str, lex: Lexicon, rng: random.Random) -> Mention:
    """A group of people: kind "gf" women (女孩们), "gm" men or a mixed group (男孩们, 学生们)."""
    if kind == "gf":
        noun = rng.choice(lex.female_groups)
    else:
        noun = rng.choice(lex.male_groups if rng.random() < 0.3 else lex.mixed_groups)
    return Mention(f"{noun}们", noun, kind)


def thing(kind: str, lex: Lexicon, rng: random.Random, animate: bool | None = None) -> Mention:
    """One ("sg": 那只猫) or several ("pl": 那些猫, 几只猫) things or animals (animals when animate is True)."""
    animate = rng.random() < 0.4 if animate is None else animate
    noun, classifier = rng.choice(lex.animals if animate else lex.things)
    if kind == "sg":
        return Mention(f"{rng.choice(SINGULAR_DETERMINERS)}{classifier}{noun}", noun, kind)
    det = rng.choice(PLURAL_DETERMINERS)
    return Mention(f"{det}{noun}" if det.endswith("些") else f"{det}{classifier}{noun}", noun, kind)
