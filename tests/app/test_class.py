"""The class on its pages (AppTest, an SQLite store in a temporary file): the lecture page starts a class (code,
join link, QR code); a view opened from there hosts it and the host key leaves the link; a student joins, answers,
changes the answer until the reveal, then sees the verdict and the class's share; an unknown code is refused; the
pre/post quiz gives the gain per objective; a store that is down is said on the lecturer's view while the
prediction itself still works; the students' page in Chinese."""
import pytest
from streamlit.testing.v1 import AppTest

from app_pages import _class, _quiz
from classstore.store import open_store
from tests.app.conftest import ROOT, switch_page
from tests.app.test_chinese import english_left, interface_strings

STUDENT = "00000000000000aa"
STEPS_TAB = "Why √d_k"


@pytest.fixture
def store_url(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'classes.sqlite3'}"
    monkeypatch.setenv("ATTENTION_LAB_CLASS_STORE", url)
    monkeypatch.setenv("ATTENTION_LAB_PUBLIC_URL", "http://10.1.2.3:8500")
    return url


def app(page: str, **params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    switch_page(at, page).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def texts(at) -> str:
    return "\n".join(e.value for kind in ("markdown", "caption", "success", "error", "warning", "info")
                     for e in getattr(at, kind))


def student(code: str, **params) -> AppTest:
    return app("classroom.py", class_code=code, student=STUDENT, **params)


def test_the_lecture_page_starts_a_class_with_its_code_join_link_and_qr_code(store_url):
    at = app("lecture.py")
    at.button(key="lecture_class_start").click().run()
    assert not at.exception
    code, key = at.session_state[_class.HOST]
    assert open_store(store_url).is_host(code, key)
    shown = texts(at)
    assert f"Class code **{code}**" in shown
    assert f"](http://10.1.2.3:8500/classroom?class_code={code})" in shown    # the join link
    assert len(at.image) == 1                                            # the QR code
    assert "not being asked anything" in shown


def test_a_view_opened_from_the_lecture_page_hosts_the_class_and_the_key_leaves_the_link(store_url):
    code, key = open_store(store_url).create()
    at = app("step_by_step.py", steps_tab=STEPS_TAB, class_host=f"{code}.{key}")
    assert at.session_state[_class.HOST] == (code, key)
    assert "class_host" not in at.query_params                          # a copied link never carries it
    at.button(key="steps_predict_ask_class").click().run()
    assert not at.exception
    asked = open_store(store_url).asking(code)
    assert len(asked.questions) == 1 and len(asked.questions[0].options["en"]) == 3
    assert "**0** students have answered." in texts(at)


def test_a_student_answers_changes_it_until_the_reveal_then_sees_the_verdict(store_url):
    s = open_store(store_url)
    code, key = s.create()
    q = _quiz.questions("pre")[0]
    s.ask(code, key, [q])
    at = student(code)
    assert at.query_params["student"] == STUDENT
    pills = at.button_group(key=f"classroom_{q.qid}")
    wrong = (q.answer[0] + 1) % q.n
    pills.set_value(wrong).run()
    assert "Saved: **" in texts(at)
    at.button_group(key=f"classroom_{q.qid}").set_value(q.answer[0]).run()
    assert s.picks(code, STUDENT, [q.qid]) == {q.qid: (q.answer[0],)}      # one answer: the last
    assert s.tally(code, q.qid, key).answered == 1
    s.answer(code, "00000000000000bb", q.qid, [wrong])
    s.reveal(code, key, [q.qid])
    at = student(code)                                                   # a reload: the pick comes from the store
    shown = texts(at)
    assert at.button_group(key=f"classroom_{q.qid}").value == q.answer[0]
    assert at.button_group(key=f"classroom_{q.qid}").disabled
    assert at.success and "Right!" in at.success[0].value
    assert "**50%** of 2 students right" in shown


def test_a_code_that_does_not_exist_is_refused(store_url):
    at = student("ZZZZZZ")
    assert [e.value for e in at.error] == [_class.REFUSED["unknown_class"]]
    at = app("classroom.py")
    assert not at.error and "Scan the QR code" in texts(at)             # no code yet: the way in


def test_the_pre_and_post_quiz_give_the_gain_per_objective(store_url):
    s = open_store(store_url)
    code, key = s.create()
    at = app("lecture.py", class_host=f"{code}.{key}")
    at.button(key="lecture_class_quiz_pre").click().run()
    assert "**Pre-quiz** asked" in texts(at)
    quiz = _quiz.load()
    for phase, right in (("pre", 1), ("post", 3)):                       # 1 of 4 right before, 3 of 4 after
        if phase == "post":
            at.button(key="lecture_class_quiz_post").click().run()
        for q in _quiz.questions(phase, quiz):
            for i in range(4):
                pick = q.answer[0] if i < right else (q.answer[0] + 1) % q.n
                s.answer(code, f"{i + 1:016x}", q.qid, [pick])
    at.run()
    assert not at.exception
    table = at.dataframe[-1].value
    assert list(table.iloc[:, 0]) == [quiz.objectives[o]["en"] for o in quiz.objectives]
    assert set(table["Before"]) == {"25%"} and set(table["After"]) == {"75%"} and set(table["Gain"]) == {"+50 points"}


def test_a_store_that_is_down_is_said_and_the_prediction_still_works(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_CLASS_STORE", f"unix://{tmp_path / 'gone.sock'}")
    at = app("lecture.py")
    at.button(key="lecture_class_start").click().run()
    assert not at.exception
    assert any("answer store cannot be reached" in w.value for w in at.warning)
    at = app("step_by_step.py", steps_tab=STEPS_TAB, class_host="ABCDEF.somekey")
    at.button(key="steps_predict_ask_class").click().run()
    assert any("answer store cannot be reached" in w.value for w in at.warning)
    at.button_group(key="steps_predict_pick").set_value(at.button_group(key="steps_predict_pick").options[0]).run()
    at.button(key="steps_predict_reveal").click().run()                 # the learner's own reveal
    assert not at.exception
    assert at.success or at.error                                        # the verdict is there
    at = app("lecture.py", class_host="ABCDEF.somekey")                   # the host's panel says it too
    assert any("answer store cannot be reached" in w.value for w in at.warning)


def test_the_students_page_speaks_chinese(store_url):
    s = open_store(store_url)
    code, key = s.create()
    questions = _quiz.questions("post")
    s.ask(code, key, questions)
    s.answer(code, STUDENT, questions[0].qid, [0])
    s.reveal(code, key, [questions[0].qid])
    at = student(code, lang="zh")
    strings, typed = interface_strings(at)
    assert any("自注意力" in t for t in strings)                          # the quiz in Chinese
    assert english_left(strings, typed) == {}


def test_a_multi_select_pick_is_stored_whole(store_url):
    from classstore.store import Question
    s = open_store(store_url)
    code, key = s.create()
    q = Question(qid="masks", text={"en": "Which masks let token 5 see token 9?"},
                 options={"en": ["causal", "sliding window", "global", "random"]}, answer=[1, 2], multi=True)
    s.ask(code, key, [q])
    at = student(code)
    at.button_group(key="classroom_masks").set_value([1, 2]).run()
    assert s.picks(code, STUDENT, ["masks"]) == {"masks": (1, 2)}
    at.button_group(key="classroom_masks").set_value([]).run()         # "none of them" is an answer too
    assert s.picks(code, STUDENT, ["masks"]) == {"masks": ()}
    assert s.tally(code, "masks", key).counts == (0, 0, 0, 0)


def test_the_lecturers_class_panel_speaks_chinese(store_url):
    """Only the panel's own words: the rest of the lecture page is checked by tests/app/test_chinese.py."""
    s = open_store(store_url)
    code, key = s.create()
    before = english_left(*interface_strings(app("lecture.py", lang="zh")))
    for phase in _quiz.PHASES:                           # both phases answered: the gain's table and chart drawn
        s.ask(code, key, _quiz.questions(phase))
        for q in _quiz.questions(phase):
            s.answer(code, STUDENT, q.qid, q.answer)
    at = app("lecture.py", lang="zh", class_host=f"{code}.{key}")
    assert at.get("plotly_chart") and at.dataframe
    strings, typed = interface_strings(at)
    assert any("课堂代码" in t for t in strings) and any("课后测验" in t for t in strings)
    after = english_left(*interface_strings(app("lecture.py", lang="zh")))    # the rest of the page, as it is now
    # the class code is data, not the interface's words (an all-letter code such as SLGBSG reads like one)
    assert set(english_left(strings, typed + "\n" + code)) - set(before) - set(after) == set()
