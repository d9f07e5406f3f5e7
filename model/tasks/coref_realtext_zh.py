"""Coreference on ordinary modern Chinese: the project's own pronoun set (model/data/coref_realtext_zh.jsonl, data
card in docs/coref-realtext-zh-card.md), read and checked as the English set is (model/tasks/coref_realtext.py),
with word indices into the words jieba cuts the text into, and its first-noun and nearest-noun baselines.
"""
from pathlib import Path

import numpy as np

from model.data import zh_words
from model.tasks import coref_realtext
from model.tasks.coref_realtext import CUED, CUES, Sentence, baseline_hits, first_noun, nearest_noun
from model.tasks.coreference import CHINESE_PRONOUNS

DATA = Path(__file__).resolve().parents[1] / "data" / "coref_realtext_zh.jsonl"
_PLAIN = CHINESE_PRONOUNS
# a segmenter that kept 他的 whole would point at it; jieba reads 他 / 的, and the label points at 他
PRONOUNS = frozenset(_PLAIN + tuple(p + "的" for p in _PLAIN))
RULES = {"first_noun": first_noun, "nearest_noun": nearest_noun}


def words(text: str) -> list[str]:
    """The words of text as jieba cuts it (model/data/zh_words.py), punctuation a word of its own:
    "小明没能追上小刚，因为他跑得太慢了。" -> 小明 / 没能 / 追上 / 小刚 / ， / 因为 / 他 / ..."""
    return [text[a:b] for a, b in zh_words.segments(text)]


def parse_line(line: str, where: str = "line") -> Sentence:
    """One JSON line -> Sentence (indices into words(text)); ValueError naming `where`
    (e.g. 'coref_realtext_zh.jsonl:12') and the problem: the English set's checks (coref_realtext.parse_line)."""
    return coref_realtext.parse_line(line, where, words, PRONOUNS)


def load(path: Path = DATA, split: str | None = None) -> list[Sentence]:
    """Every sentence of the set (or of one split), in file order; ValueError naming the first bad line."""
    return coref_realtext.load(path, split, words, PRONOUNS)


def baselines(sentences: list[Sentence]) -> dict[str, dict[str, float]]:
    """First-noun and nearest-noun accuracy (model/tasks/coref_realtext.py) over the sentences:
    {rule: {cue: accuracy, ..., "cued": gender + number + structure, "all": every sentence}}, nan where a group is
    empty. A Winograd pair shares its candidates and its pronoun's place, so each rule gets one of its two right."""
    cue = np.array([s.cue for s in sentences])
    groups = {**{c: cue == c for c in CUES}, "cued": np.isin(cue, CUED), "all": np.ones(len(sentences), bool)}
    out = {}
    for name, rule in RULES.items():
        hits = baseline_hits(sentences, rule)
        out[name] = {g: float(hits[sel].mean()) if sel.any() else float("nan") for g, sel in groups.items()}
    return out
