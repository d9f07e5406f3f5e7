"""The lecture's pre/post quiz (assets/quiz.json, app_pages/_quiz.py): 8-10 questions over the course texts'
learning objectives, each in English and Chinese with its answer and the course text's section it tests (found
in that text, ../shared/seeds/), the answers not all in one place; the class store asks it as questions of both
languages; the gain per objective counted from tallies made by hand."""
import json
from pathlib import Path

import pytest

from app_pages import _quiz
from classstore.store import Tally
from tests.seeds import SEEDS

ROOT = Path(__file__).resolve().parents[2]


def test_the_quiz_covers_the_objectives_in_both_languages():
    quiz = _quiz.load()
    assert 8 <= len(quiz.items) <= 10
    assert {"qkv", "scaling", "causal", "positions", "heads"} <= set(quiz.objectives)
    assert {q["objective"] for q in quiz.items} == set(quiz.objectives)      # every objective is tested
    for q in quiz.items:
        assert all(q[f][lang] for f in ("question", "explain") for lang in _quiz.LANGS)
        assert len(q["options"]["en"]) == len(q["options"]["zh"]) >= 3
        assert len(set(q["options"]["zh"])) == len(q["options"]["zh"])      # options tell apart in each language
    assert len({q["answer"] for q in quiz.items}) >= 3                        # the right answer is not always "A"


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the course texts (../shared/seeds) are not beside the checkout")
def test_each_question_names_a_section_of_a_course_text():
    for q in _quiz.load().items:
        text = (SEEDS / q["seed"]["file"]).read_text(encoding="utf-8")
        assert q["seed"]["section"] in text, q["id"]


def test_a_bad_quiz_file_is_refused_with_the_question_named():
    raw = json.loads(_quiz.QUIZ.read_text(encoding="utf-8"))
    raw["questions"][2]["objective"] = "nowhere"
    with pytest.raises(ValueError, match="question 'q03': unknown objective 'nowhere'"):
        _quiz.check(raw)
    raw = json.loads(_quiz.QUIZ.read_text(encoding="utf-8"))
    del raw["questions"][0]["options"]["zh"]
    with pytest.raises(ValueError, match="question 'q01': options needs en, zh"):
        _quiz.check(raw)


def test_each_phase_is_asked_as_questions_of_both_languages():
    pre, post = _quiz.questions("pre"), _quiz.questions("post")
    assert [q.qid for q in pre] == [f"quiz-pre-q{i:02d}" for i in range(1, len(pre) + 1)]
    assert {q.group for q in post} == {"quiz-post"}
    first = _quiz.load().items[0]
    assert pre[0].shown("zh")[0] == first["question"]["zh"] and pre[0].shown("en")[1] == first["options"]["en"]
    assert pre[0].answer == [first["answer"]]


def test_the_gain_per_objective_is_the_share_right_after_minus_before():
    quiz = _quiz.load()
    scaling = [q["id"] for q in quiz.items if q["objective"] == "scaling"]
    assert len(scaling) == 2
    t = {_quiz.qid("pre", scaling[0]): Tally("a", (0,), answered=10, correct=2, revealed=True),
         _quiz.qid("pre", scaling[1]): Tally("b", (0,), answered=10, correct=4, revealed=True),
         _quiz.qid("post", scaling[0]): Tally("c", (0,), answered=8, correct=6, revealed=True),
         _quiz.qid("post", scaling[1]): Tally("d", (0,), answered=12, correct=9, revealed=True)}
    gains = {g.objective: g for g in _quiz.gains(t, quiz)}
    g = gains["scaling"]
    assert (g.pre, g.post, g.answered_pre, g.answered_post) == (0.3, 0.75, 20, 20)
    assert g.gain == pytest.approx(0.45)
    assert gains["causal"].pre is None and gains["causal"].gain is None           # not asked: no figure
