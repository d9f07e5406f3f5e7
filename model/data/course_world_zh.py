"""The course world in Chinese: generated pronoun sentences with 他 / 她 / 它 / 他们 / 她们 / 它们 for teaching a
Chinese encoder coreference, as model/data/course_world.py does for English: Winograd-style sentences whose predicate
decides the referent (model/data/course_zh_schemas.py: 奖杯放不进箱子，因为它太大了 / 太小了), sentences whose pronoun
gender, number or syntax settles (model/data/course_zh_agreement.py, with the people and things of
model/data/course_zh_people.py), and plain sentences without a pronoun.

Splits: noun pairs, names and nouns are divided train / val / held-out, and two frames per schema or cue are held
out; the classic examples (CLASSICS) never appear in training data. Samples are course_samples.Sample with
indices (`Ref.pronoun_index`, `Ref.antecedent_index`) counting words of `words(text)` (jieba's words, as the
encoding groups pieces), without [CLS]; add 1 when the text is encoded with [CLS] in front.
"""
import random

from model.data import course_zh_agreement, course_zh_people
from model.data.course_samples import CUES, Ref, Sample
from model.data.course_zh_people import PRONOUNS
from model.data.course_zh_schemas import CLASSIC_PAIRS, HELDOUT_FRAMES, SCHEMAS, pair_splits, pronoun, split_spec
from model.data.course_zh_words import words, words_and_spans

__all__ = ["CLASSIC_PAIRS", "CUES", "HELDOUT_FRAMES", "PRONOUNS", "SCHEMAS", "Ref", "Sample", "pair_splits",
           "schema_sentence", "split_spec", "words", "words_and_spans"]

# shares of the training mixture: schema sentences (a quarter with the noun repeated), plain sentences, and the
# agreement sentences of each cue
MIXTURE = {"schema": 0.40, "plain": 0.10, "gender": 0.20, "number": 0.15, "structure": 0.15}

# the classic examples (never in training) and where their 它 points; each two in a row differ in one word
CLASSIC_ANSWERS = {"奖杯放不进箱子，因为它太大了。": "奖杯", "奖杯放不进箱子，因为它太小了。": "箱子",
                   "小猫没有过马路，因为它太累了。": "小猫", "小猫没有过马路，因为它太宽了。": "马路"}
_CLASSIC_TEXTS = frozenset(CLASSIC_ANSWERS)

# plain sentences: who did what to whom, and single facts, no pronoun
ORDINARY_TEMPLATES = ("{x}看见了{y}。", "{x}在{place}旁边追{y}。", "{x}在{venue}吃了{dish}。",
                      "{x}在{place}边上找到了{thing}。", "{x}把{thing}放进了{box}。")
FACT_TEMPLATES = ("{a}{p}。", "今天{a}{p}。", "{b}{p}。", "昨天{b}{p}。")


def schema_sentence(name: str, frame: int, a: str, b: str, side: str, pred: int) -> Sample | None:
    """One schema sentence whose pronoun refers to noun a (side "a") or b (side "b"); None when jieba does not
    keep the pronoun and both nouns as words of their own."""
    s = SCHEMAS[name]
    p = (s.a_preds if side == "a" else s.b_preds)[pred]
    pron = pronoun(name, a)
    before, after = s.frames[frame].split("{pr}")
    head_text = before.format(a=a, b=b)
    text = head_text + pron + after.format(a=a, b=b, p=p)
    ws, spans = words_and_spans(text)
    at = next((i for i, (start, _) in enumerate(spans) if start == len(head_text)), None)
    if at is None or ws[at] != pron or ws.count(a) != 1 or ws.count(b) != 1:
        return None
    ante = a if side == "a" else b
    pair_id = f"zh-{name}|{frame}|{a}|{b}|{pred}"
    return Sample(text, (Ref(at, ws.index(ante), pron, ante),), name, frame, (a, b), pair_id)


def _schema_pair(name: str, split: str, rng: random.Random) -> list[Sample]:
    """Both sides of one schema minimal pair from a split (retrying pairs jieba cuts otherwise)."""
    pairs, frames = split_spec(split, name)
    for _ in range(100):
        (a, b), f, pred = rng.choice(pairs), rng.choice(frames), rng.randrange(10)
        sides = [schema_sentence(name, f, a, b, side, pred) for side in "ab"]
        if None not in sides:
            return sides
    raise RuntimeError(f"no {name} pair could be drawn from {split}")


def repeat_noun(sample: Sample) -> Sample:
    """The same sentence with the pronoun replaced by its antecedent (plain text, no reference)."""
    r = sample.refs[0]
    ws = words(sample.text)
    ws[r.pronoun_index] = r.antecedent
    return Sample("".join(ws), (), sample.schema, sample.frame, sample.pair, kind="repeat")


def fact(rng: random.Random) -> Sample:
    """A schema noun with a predicate of its class: 奖杯太大了。"""
    s = SCHEMAS[rng.choice(sorted(SCHEMAS))]
    t = rng.choice(FACT_TEMPLATES)
    p = rng.choice(s.a_preds if "{a}" in t else s.b_preds)
    return Sample(t.format(a=rng.choice(s.a_nouns), b=rng.choice(s.b_nouns), p=p), (), kind="fact")


def ordinary(rng: random.Random) -> Sample:
    """小狗看见了小猫。 and friends: who did what to whom depends on word order."""
    lex = course_zh_people.lexicon("train")
    beings = lex.female_names + lex.male_names + SCHEMAS["animal_place"].a_nouns
    x, y = rng.sample(beings, 2)
    fills = dict(x=x, y=y, place=rng.choice(SCHEMAS["animal_place"].b_nouns),
                 venue=rng.choice(SCHEMAS["venue_dish"].a_nouns), dish=rng.choice(SCHEMAS["venue_dish"].b_nouns),
                 thing=rng.choice(SCHEMAS["object_container"].a_nouns),
                 box=rng.choice(SCHEMAS["object_container"].b_nouns))
    return Sample(rng.choice(ORDINARY_TEMPLATES).format(**fills), (), kind="ordinary")


def _mixture_sample(kind: str, rng: random.Random) -> Sample:
    """One training sample of a MIXTURE kind."""
    if kind == "schema":
        s = rng.choice(_schema_pair(rng.choice(sorted(SCHEMAS)), "train", rng))
        return repeat_noun(s) if rng.random() < 0.25 else s
    if kind == "plain":
        return fact(rng) if rng.random() < 0.6 else ordinary(rng)
    return course_zh_agreement.training_sample(kind, rng)


def training_samples(n: int, seed: int = 0, mixture: dict | None = None) -> list[Sample]:
    """n training samples drawn by the shares of mixture (default MIXTURE), fewer when a classic example is drawn
    (it is left out): only training pairs, names, nouns and frames."""
    mixture = MIXTURE if mixture is None else mixture
    if set(mixture) - set(MIXTURE) or not mixture:
        raise ValueError(f"mixture keys must be among {', '.join(MIXTURE)}, got {', '.join(mixture) or 'none'}")
    rng = random.Random(f"zh-train-{seed}")
    kinds, weights = list(mixture), list(mixture.values())
    out = [_mixture_sample(rng.choices(kinds, weights)[0], rng) for _ in range(n)]
    return [s for s in out if s.text not in _CLASSIC_TEXTS]


def eval_samples(split: str, n_pairs: int = 150, seed: int = 0) -> list[Sample]:
    """Schema minimal pairs for "val", "heldout_pairs" or "heldout_frames": 2 * n_pairs samples, each pair the same
    words but the predicate, so its two sides point the pronoun at different nouns."""
    if split == "train":
        raise ValueError("eval_samples is for val / heldout_pairs / heldout_frames")
    rng = random.Random(f"zh-{split}-{seed}")
    return [s for _ in range(n_pairs) for s in _schema_pair(rng.choice(sorted(SCHEMAS)), split, rng)]


def agreement_samples(split: str, n_pairs: int = 150, seed: int = 0, cues: tuple = CUES) -> list[Sample]:
    """Minimal pairs of the agreement sentences (course_zh_agreement.eval_pairs) of each cue, n_pairs per cue."""
    return [s for cue in cues for s in course_zh_agreement.eval_pairs(cue, split, n_pairs, seed)]


def classic_samples() -> list[Sample]:
    """The classic examples with their one reference each (the pronoun 它 and its antecedent) and their two nouns."""
    out = []
    for text, ante in CLASSIC_ANSWERS.items():
        ws = words(text)
        pair = next(p for p in sorted(CLASSIC_PAIRS) if set(p) <= set(ws))
        out.append(Sample(text, (Ref(ws.index("它"), ws.index(ante), "它", ante),), pair=pair, pair_id=text))
    return out
