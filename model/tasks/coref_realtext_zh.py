"""Coreference on ordinary modern Chinese: the project's own pronoun set (model/data/coref_realtext_zh.jsonl, data
card in docs/coref-realtext-zh-card.md), read and checked as the English set is (model/tasks/coref_realtext.py),
with word indices into the words jieba cuts the text into, and its first-noun and nearest-noun baselines.
"""
import json
from pathlib import Path

import numpy as np

from model.data import zh_words
from model.tasks.coref_realtext import CUED, CUES, SPLITS, Sentence, baseline_hits, first_noun, nearest_noun

DATA = Path(__file__).resolve().parents[1] / "data" / "coref_realtext_zh.jsonl"
_PLAIN = ("他", "她", "它", "他们", "她们", "它们")
# a segmenter that kept 他的 whole would point at it; jieba reads 他 / 的, and the label points at 他
PRONOUNS = frozenset(_PLAIN + tuple(p + "的" for p in _PLAIN))
_KEYS = ("id", "split", "text", "pronoun", "antecedent", "candidates", "cue", "pair")
RULES = {"first_noun": first_noun, "nearest_noun": nearest_noun}


def words(text: str) -> list[str]:
    """The words of text as jieba cuts it (model/data/zh_words.py), punctuation a word of its own:
    "小明没能追上小刚，因为他跑得太慢了。" -> 小明 / 没能 / 追上 / 小刚 / ， / 因为 / 他 / ..."""
    return [text[a:b] for a, b in zh_words.segments(text)]


def _problem(d: dict) -> str | None:
    """What is wrong with one decoded line, or None."""
    if not isinstance(d, dict) or set(d) != set(_KEYS):
        return f"expected exactly the keys {', '.join(_KEYS)}"
    if d["split"] not in SPLITS or d["cue"] not in CUES:
        return f"split must be one of {SPLITS} and cue one of {CUES}, got {d['split']!r} and {d['cue']!r}"
    if not isinstance(d["text"], str) or not isinstance(d["candidates"], list):
        return "text must be a string and candidates a list of word indices"
    w = words(d["text"])
    idx = [d["pronoun"], d["antecedent"], *d["candidates"]]
    if not all(isinstance(i, int) and 0 <= i < len(w) for i in idx):
        return f"a word index is out of range: the text has {len(w)} words (indices 0..{len(w) - 1})"
    if w[d["pronoun"]] not in PRONOUNS:
        return f"word {d['pronoun']} is {w[d['pronoun']]!r}, not a pronoun"
    if len(d["candidates"]) < 2 or d["candidates"] != sorted(set(d["candidates"])):
        return "candidates must be at least two distinct word indices in increasing order"
    if d["antecedent"] not in d["candidates"] or d["pronoun"] in d["candidates"]:
        return "the antecedent must be among the candidates and the pronoun must not"
    return None


def parse_line(line: str, where: str = "line") -> Sentence:
    """One JSON line -> Sentence (indices into words(text)); ValueError naming `where`
    (e.g. 'coref_realtext_zh.jsonl:12') and the problem."""
    try:
        d = json.loads(line)
    except json.JSONDecodeError as e:
        raise ValueError(f"{where}: not JSON ({e.msg})") from None
    problem = _problem(d)
    if problem:
        raise ValueError(f"{where}: {problem}")
    return Sentence(d["id"], d["split"], d["text"], d["pronoun"], d["antecedent"], tuple(d["candidates"]),
                    d["cue"], d["pair"])


def load(path: Path = DATA, split: str | None = None) -> list[Sentence]:
    """Every sentence of the set (or of one split), in file order; ValueError naming the first bad line."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    out = [parse_line(t, f"{Path(path).name}:{n}") for n, t in enumerate(lines, 1) if t.strip()]
    return [s for s in out if split is None or s.split == split]


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
