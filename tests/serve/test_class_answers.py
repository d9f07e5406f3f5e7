"""A class answers one question end to end, on both stores, over Streamlit's own websocket protocol
(serve/wire.py, serve/class_load.py): a lecturer's session starts a class on the lecture page, opens the step-by-step
page's √d_k prediction and presses Ask the class; 30 students join from the link, each answering on the class page;
the lecturer's box counts them live (the chart's bars are the students' picks), the lecturer reveals, every student
sees whether they were right and the class's share, and a reset opens the question again.

Redis: the real class setup (HAProxy, two replicas, the store `python -m serve up` starts), the students spread
over both replicas and counted in one place. SQLite: one `streamlit run app.py` with its embedded file."""
import json
import time
import urllib.parse
from collections import Counter

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.WidgetStates_pb2 import WidgetState

from classstore.store import open_store
from harness.server import streamlit_server
from serve import class_load, wire

STUDENTS = 30
STEPS = urllib.parse.urlencode({"steps_tab": "Why √d_k"})


def _click(s, msgs, key: str, query: str = "") -> list:
    out = s.change([WidgetState(id=wire.widget_id(msgs, key), trigger_value=True)], query)
    assert not wire.elements(out, "exception"), [e.message for e in wire.elements(out, "exception")]
    return out


def _answered(msgs) -> int | None:
    for body in wire.texts(msgs, "markdown"):
        if "have answered" in body or "has answered" in body or "answered;" in body:
            return int(body.split("**")[1])
    return None


def one_question(url: str, store_url: str) -> list[class_load.ClassStudent]:
    store = open_store(store_url)
    with wire.session(url, timeout=180) as lecturer:
        msgs = lecturer.run("lecture")
        msgs = _click(lecturer, msgs, "lecture_class_start")
        code = next(b for b in wire.texts(msgs, "markdown") if b.startswith("Class code")).split("**")[1]
        assert store.exists(code)
        msgs = lecturer.run("step_by_step", STEPS)
        msgs = _click(lecturer, msgs, "steps_predict_ask_class", STEPS)
        assert _answered(msgs) == 0
        asked = store.asking(code)
        q = asked.questions[0]
        assert q.answer == [] and asked.revealed == frozenset()              # the students' view hides it

        students, stop = class_load.join(url, code, STUDENTS, seed=38)
        try:
            assert class_load.wait_joined(students, timeout=240) == STUDENTS
            picks = {s.idx: s.idx % q.n for s in students}
            phase = class_load.Phase(q, picks, window_s=6)
            phase.start = time.perf_counter()
            for s in students:
                s.ask(phase)
            deadline = time.perf_counter() + 90
            while len(phase.acked) < STUDENTS and time.perf_counter() < deadline:
                time.sleep(0.2)
            assert len(phase.acked) == STUDENTS, phase.errors[:3]
            assert phase.errors == []
            stop.set()                                          # the phones are driven from here on
            for s in students:
                s.thread.join(timeout=15)

            live = lecturer.fragment(wire.timed_fragment(msgs), query=STEPS, auto=True)   # the box's own refresh
            assert _answered(live) == STUDENTS
            chart = json.loads(wire.elements(live, "plotly_chart")[0].spec)
            assert chart["data"][0]["x"] == [Counter(picks.values())[i] for i in range(q.n)]

            pill = wire.widget(msgs, "button_group", "steps_predict_pick")       # the lecturer's own prediction
            msgs = lecturer.change([wire.pills_state(pill.id, [pill.options[0].content])], STEPS)
            msgs = _click(lecturer, msgs, "steps_predict_reveal", STEPS)
            right = store.asking(code).questions[0].answer
            assert len(right) == 1 and store.tally(code, q.qid).revealed

            for s in students:                                                  # each phone's next refresh
                seen = s.session.fragment(s.fid, query=s.query(), auto=True)
                verdicts = [a for a in wire.elements(seen, "alert") if a.format in (Alert.SUCCESS, Alert.ERROR)]
                assert len(verdicts) == 1
                assert (verdicts[0].format == Alert.SUCCESS) == (picks[s.idx] == right[0]), verdicts[0].body
                share = sum(p == right[0] for p in picks.values()) / STUDENTS
                assert any(f"**{share:.0%}** of {STUDENTS} students right" in b for b in wire.texts(seen, "markdown"))
                assert wire.widget(seen, "button_group", f"classroom_{q.qid}").disabled   # answers closed

            t = store.tally(code, q.qid)
            assert (t.answered, list(t.counts)) == (STUDENTS, [Counter(picks.values())[i] for i in range(q.n)])
            msgs = _click(lecturer, msgs, "steps_predict_class_reset", STEPS)
            assert store.asking(code).revealed == frozenset()
            again = students[0].session.fragment(students[0].fid, query=students[0].query(), auto=True)
            assert not wire.widget(again, "button_group", f"classroom_{q.qid}").disabled   # asked anew
            assert not any(a.format == Alert.SUCCESS for a in wire.elements(again, "alert"))
        finally:
            class_load.leave(students, stop)
    store.close()
    return students


def test_thirty_students_and_a_lecturer_through_one_question_on_redis_behind_the_balancer(klass):
    students = one_question(klass.url, klass.store_url)
    served = Counter(s.replica for s in students if s.replica)
    assert set(served) == {"r1", "r2"}, served                 # both replicas took answers; one store counted them


def test_thirty_students_and_a_lecturer_through_one_question_on_sqlite(tmp_path):
    store_url = f"sqlite:///{tmp_path / 'classes.sqlite3'}"
    with streamlit_server(tmp_path / "server.log", env={"ATTENTION_LAB_CLASS_STORE": store_url}) as url:
        one_question(url, store_url)


def test_the_class_store_restarts_with_every_answer(klass):
    """`python -m serve restart store` after a SIGKILL: the answers acknowledged before it are all there."""
    from serve import local
    store = open_store(klass.store_url)
    code, key = store.create()
    q = class_load.question("restart")
    store.ask(code, key, [q])
    for i in range(20):
        store.answer(code, f"{i + 1:016x}", q.qid, [i % q.n])
    local.restart_store(klass.dir, kill=True)
    t = store.tally(code, q.qid, key)
    assert t.answered == 20 and sum(t.counts) == 20
    store.close()
