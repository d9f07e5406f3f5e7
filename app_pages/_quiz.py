"""The lecture's pre/post quiz: ten questions over the course texts' learning objectives, in
assets/quiz.json with their answers, the objective each tests and the course text's section it comes from, in
English and Chinese. The class answers them before the lecture and again after it; the gain per objective is
the share of right answers after minus before. Plain Python (no Streamlit)."""
import functools
import json
from dataclasses import dataclass
from pathlib import Path

from classstore.store import Question, Tally

QUIZ = Path(__file__).resolve().parents[1] / "assets" / "quiz.json"
FORMAT = "attention-lab-quiz"
PHASES = ("pre", "post")
LANGS = ("en", "zh")


@dataclass(frozen=True)
class Quiz:
    title: dict[str, str]
    objectives: dict[str, dict[str, str]]      # id -> language -> name
    items: tuple[dict, ...]                    # as in the file


@dataclass(frozen=True)
class Gain:
    objective: str
    pre: float | None          # share right before (None: nobody answered)
    post: float | None
    answered_pre: int
    answered_post: int

    @property
    def gain(self) -> float | None:
        return None if self.pre is None or self.post is None else self.post - self.pre


def check(raw: dict) -> Quiz:
    """The quiz file's content, checked: a ValueError naming the question and the field otherwise."""
    if raw.get("format") != FORMAT:
        raise ValueError(f"not a quiz file (format {raw.get('format')!r})")
    objectives = raw["objectives"]
    seen = set()
    for q in raw["questions"]:
        where = f"question {q.get('id')!r}"
        if q["id"] in seen:
            raise ValueError(f"{where}: the id is used twice")
        seen.add(q["id"])
        if q["objective"] not in objectives:
            raise ValueError(f"{where}: unknown objective {q['objective']!r}")
        if not q.get("seed", {}).get("file") or not q["seed"].get("section"):
            raise ValueError(f"{where}: no course text section")
        for field in ("question", "options", "explain"):
            if set(q[field]) != set(LANGS):
                raise ValueError(f"{where}: {field} needs {', '.join(LANGS)}")
        if len({len(q["options"][lang]) for lang in LANGS}) != 1 or not 0 <= q["answer"] < len(q["options"]["en"]):
            raise ValueError(f"{where}: options or answer do not agree")
    return Quiz(raw["title"], objectives, tuple(raw["questions"]))


@functools.cache
def load(path: Path = QUIZ) -> Quiz:
    return check(json.loads(Path(path).read_text(encoding="utf-8")))


def qid(phase: str, item_id: str) -> str:
    return f"quiz-{phase}-{item_id}"


def questions(phase: str, quiz: Quiz | None = None) -> list[Question]:
    """The quiz as the class store asks it in one phase (pre or post), both languages in each question."""
    assert phase in PHASES, phase
    quiz = quiz or load()
    return [Question(qid=qid(phase, q["id"]), text=dict(q["question"]), options={k: list(v) for k, v in
                                                                                q["options"].items()},
                     answer=[q["answer"]], explain=dict(q["explain"]), group=f"quiz-{phase}") for q in quiz.items]


def gains(tallies: dict[str, Tally], quiz: Quiz | None = None) -> list[Gain]:
    """Per objective: the share of right answers before and after, from the tallies by qid (a missing tally: no
    answers)."""
    quiz = quiz or load()
    out = []
    for objective in quiz.objectives:
        items = [q["id"] for q in quiz.items if q["objective"] == objective]
        row = {}
        for phase in PHASES:
            got = [tallies[qid(phase, i)] for i in items if qid(phase, i) in tallies]
            answered = sum(t.answered for t in got)
            row[phase] = (sum(t.correct for t in got) / answered if answered else None, answered)
        out.append(Gain(objective, row["pre"][0], row["post"][0], row["pre"][1], row["post"][1]))
    return out
