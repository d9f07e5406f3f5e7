"""The class store (classstore/store.py) on both backends for real: a redis-server started here (as
`python -m serve up` starts it: serve/store.py) and an SQLite file. The class's rules (one answer per
student and question until the reveal, a rate per client, unknown codes refused, expiry after a day, nothing
personal kept, no counts before the reveal), multi-select counting, answers from many threads at once, a store
that is down, and acknowledged answers that survive Redis killed with SIGKILL."""
import signal
import sqlite3
import threading
import time

import pytest
import redis

from classstore.store import CODE, TTL_S, Question, Refused, StoreDown, open_store
from serve import store as redis_server

STUDENTS = [f"{i:016x}" for i in range(1, 41)]


@pytest.fixture(scope="module")
def redis_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("redis")
    pid = redis_server.start(folder, folder / "redis.log")
    try:
        yield folder, pid
    finally:
        redis_server.stop(pid)


class Clock:
    def __init__(self):
        self.now = 1_900_000_000.0

    def __call__(self):
        return self.now


@pytest.fixture(params=["sqlite", "redis"])
def make(request, tmp_path):
    """make(**kw) -> a store of the backend under test (kw: ttl_s, clock, per_student, ...)."""
    made = []

    def build(**kw):
        if request.param == "redis":
            folder, _ = request.getfixturevalue("redis_dir")
            s = open_store(redis_server.url(folder), **kw)
        else:
            s = open_store(f"sqlite:///{tmp_path / 'classes.sqlite3'}", **kw)
        made.append(s)
        return s
    yield build
    for s in made:
        s.close()


def question(qid="q1", n=3, answer=(1,), multi=False, group=""):
    return Question(qid=qid, text={"en": f"Which one? ({qid})"}, options={"en": [f"option {i}" for i in range(n)]},
                    answer=list(answer), multi=multi, explain={"en": "Because."}, group=group)


def test_a_class_has_a_short_code_and_only_its_key_hosts_it(make):
    s = make()
    code, key = s.create()
    assert CODE.fullmatch(code) and s.exists(code) and not s.exists("ZZZZZZ") and not s.exists("<b>")
    assert s.is_host(code, key) and not s.is_host(code, key + "x") and not s.is_host(code, "")
    with pytest.raises(Refused) as e:
        s.ask(code, "not the key", [question()])
    assert e.value.reason == "not_host"
    with pytest.raises(Refused) as e:
        s.reveal(code, "not the key", ["q1"])
    assert e.value.reason == "not_host"


def test_an_answer_for_a_code_that_does_not_exist_is_refused(make):
    s = make()
    for code in ("ZZZZZZ", "abc", "", "A" * 200):
        with pytest.raises(Refused) as e:
            s.answer(code, STUDENTS[0], "q1", [0])
        assert e.value.reason == "unknown_class"
        with pytest.raises(Refused):
            s.asking(code)


def test_one_answer_per_student_and_question_the_last_pick_counting_until_the_reveal(make):
    s = make()
    code, key = s.create()
    s.ask(code, key, [question()])
    s.answer(code, STUDENTS[0], "q1", [0])
    s.answer(code, STUDENTS[0], "q1", [2])          # changed its mind: one answer, the last
    s.answer(code, STUDENTS[1], "q1", [1])
    t = s.tally(code, "q1", key)
    assert (t.counts, t.answered, t.correct, t.revealed) == ((0, 1, 1), 2, 1, False)
    assert s.picks(code, STUDENTS[0], ["q1"]) == {"q1": (2,)}
    s.reveal(code, key, ["q1"])
    with pytest.raises(Refused) as e:
        s.answer(code, STUDENTS[0], "q1", [1])       # no change after the reveal
    assert e.value.reason == "revealed"
    with pytest.raises(Refused) as e:
        s.answer(code, STUDENTS[2], "q1", [1])       # and no late answer
    assert e.value.reason == "revealed"
    assert s.tally(code, "q1").counts == (0, 1, 1)   # anyone may read the counts once revealed
    s.reset(code, key, ["q1"])                       # the lecturer asks anew: nothing counted, open again
    t = s.tally(code, "q1", key)
    assert (t.answered, t.revealed) == (0, False)
    s.answer(code, STUDENTS[0], "q1", [1])
    assert s.tally(code, "q1", key).counts == (0, 1, 0)


def test_a_multi_select_answer_counts_each_option_and_none_is_an_answer(make):
    s = make()
    code, key = s.create()
    s.ask(code, key, [question(n=4, answer=(0, 2), multi=True)])
    s.answer(code, STUDENTS[0], "q1", [0, 2])
    s.answer(code, STUDENTS[1], "q1", [2, 0, 2])     # the same pick, sent unsorted and twice
    s.answer(code, STUDENTS[2], "q1", [1, 2, 3])
    s.answer(code, STUDENTS[3], "q1", [])            # "none of them"
    t = s.tally(code, "q1", key)
    assert (t.counts, t.answered, t.correct) == ((2, 1, 3, 1), 4, 2)


def test_only_a_question_being_asked_and_its_own_options_are_accepted(make):
    s = make()
    code, key = s.create()
    s.ask(code, key, [question("q1")])
    for qid, picks, reason in (("q2", [0], "not_asked"), ("q1", [3], "bad_pick"), ("q1", [0, 1], "bad_pick"),
                               ("q1", [], "bad_pick"), ("q1", ["x"], "bad_pick"), ("q1", [-1], "bad_pick")):
        with pytest.raises(Refused) as e:
            s.answer(code, STUDENTS[0], qid, picks)
        assert e.value.reason == reason, (qid, picks)
    with pytest.raises(Refused) as e:
        s.answer(code, "not-a-random-id", "q1", [0])
    assert e.value.reason == "bad_student"
    s.ask(code, key, [question("q2")])               # the next question: q1 is no longer asked
    with pytest.raises(Refused) as e:
        s.answer(code, STUDENTS[0], "q1", [0])
    assert e.value.reason == "not_asked"
    s.stop_asking(code, key)
    assert s.asking(code).questions == ()


def test_a_rate_per_student_and_per_client_address(make):
    s = make(per_student=3, per_client=5)
    code, key = s.create()
    s.ask(code, key, [question()])
    for _ in range(3):
        s.answer(code, STUDENTS[0], "q1", [0], client="10.0.0.7")
    with pytest.raises(Refused) as e:
        s.answer(code, STUDENTS[0], "q1", [1], client="10.0.0.7")
    assert e.value.reason == "too_fast"
    s.answer(code, STUDENTS[1], "q1", [1], client="10.0.0.7")      # another student of that address: 5th
    with pytest.raises(Refused) as e:                                 # the address's 6th: a new id does not help
        s.answer(code, STUDENTS[2], "q1", [1], client="10.0.0.7")
    assert e.value.reason == "too_fast"
    s.answer(code, STUDENTS[2], "q1", [1], client="10.0.0.8")      # another address is not slowed
    assert s.tally(code, "q1", key).counts == (1, 2, 0)             # the refused answers were not stored


def test_the_rate_window_passes(make):
    clock = Clock()
    s = make(per_student=2, window_s=1, clock=clock)
    code, key = s.create()
    s.ask(code, key, [question()])
    s.answer(code, STUDENTS[0], "q1", [0])
    s.answer(code, STUDENTS[0], "q1", [0])
    with pytest.raises(Refused):
        s.answer(code, STUDENTS[0], "q1", [0])
    clock.now += 1.5
    time.sleep(1.5 if s.backend == "redis" else 0)    # Redis counts its own seconds
    s.answer(code, STUDENTS[0], "q1", [2])
    assert s.picks(code, STUDENTS[0], ["q1"]) == {"q1": (2,)}


def test_students_see_neither_the_answer_nor_the_counts_before_the_reveal(make):
    s = make()
    code, key = s.create()
    s.ask(code, key, [question()])
    s.answer(code, STUDENTS[0], "q1", [1])
    shown = s.asking(code).questions[0]
    assert shown.answer == [] and shown.explain == {} and shown.options == {"en": ["option 0", "option 1", "option 2"]}
    for who in (None, "", "a guess"):
        with pytest.raises(Refused) as e:
            s.tally(code, "q1", who)
        assert e.value.reason == "not_revealed"
    assert s.picks(code, STUDENTS[1], ["q1"]) == {}                # another student's pick is not yours
    s.reveal(code, key, ["q1"])
    asked = s.asking(code)
    assert asked.revealed == {"q1"} and asked.questions[0].answer == [1] and asked.questions[0].explain
    assert s.tally(code, "q1").correct == 1


def test_a_class_expires_after_a_day(make, redis_dir):
    clock = Clock()
    s = make()
    if s.backend == "sqlite":                      # Redis keeps its own time: the keys' TTL is checked instead
        s = make(clock=clock)
    code, key = s.create()
    s.ask(code, key, [question()])
    s.answer(code, STUDENTS[0], "q1", [1])
    if s.backend == "redis":
        r = redis.Redis.from_url(redis_server.url(redis_dir[0]), decode_responses=True)
        keys = r.keys(f"class:{code}*")
        assert len(keys) >= 4 and all(0 < r.ttl(k) <= TTL_S for k in keys), {k: r.ttl(k) for k in keys}
        assert all(r.ttl(k) > TTL_S - 600 for k in keys if ":rate:" not in k)
        short = make(ttl_s=2, window_s=1)                     # the same rule, seen to happen
        code, key = short.create()
        short.ask(code, key, [question()])
        short.answer(code, STUDENTS[0], "q1", [1])
        time.sleep(3.2)                                # EXPIREAT takes whole seconds: gone within 2 s
        assert not short.exists(code) and r.keys(f"class:{code}*") == []
        r.close()
    else:
        clock.now += TTL_S - 60
        assert s.exists(code)
        clock.now += 120
        assert not s.exists(code)
        with pytest.raises(Refused) as e:
            s.answer(code, STUDENTS[1], "q1", [1])
        assert e.value.reason == "unknown_class"
        s.create()                                   # a new class clears the expired ones from the file
        db = sqlite3.connect(s.path)
        assert db.execute("SELECT COUNT(*) FROM answers WHERE code = ?", (code,)).fetchone() == (0,)
        db.close()


def test_nothing_personal_is_kept(make, redis_dir):
    s = make()
    code, key = s.create()
    s.ask(code, key, [question()])
    s.answer(code, STUDENTS[0], "q1", [1], client="203.0.113.77")
    if s.backend == "redis":
        r = redis.Redis.from_url(redis_server.url(redis_dir[0]), decode_responses=True)
        dump = repr({k: r.dump(k) for k in r.keys(f"class:{code}*")}) + repr(r.keys(f"class:{code}*"))
        r.close()
    else:
        db = sqlite3.connect(s.path)
        dump = repr([db.execute(f"SELECT * FROM {t}").fetchall() for t in ("classes", "questions", "answers",
                                                                          "hits")])
        db.close()
    assert "203.0.113.77" not in dump and key not in dump            # no address, no host key (its hash only)
    assert STUDENTS[0] in dump                                         # the random id is all a student is


def test_answers_from_many_threads_at_once_are_all_counted(make):
    s = make()
    code, key = s.create()
    s.ask(code, key, [question(n=4, answer=(3,))])
    errors = []

    def one(i):
        try:
            s.answer(code, STUDENTS[i], "q1", [i % 4])
        except Exception as e:                          # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=one, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert s.tally(code, "q1", key).counts == (10, 10, 10, 10)


def test_a_store_that_is_down_says_so(tmp_path):
    gone = open_store(f"unix://{tmp_path / 'no.sock'}")
    t0 = time.perf_counter()
    with pytest.raises(StoreDown, match="does not answer"):
        gone.exists("ABCDEF")
    assert time.perf_counter() - t0 < 3                      # fails fast: a page is not held up
    (tmp_path / "file").write_text("")
    with pytest.raises(StoreDown, match="cannot be opened"):
        open_store(f"sqlite:///{tmp_path / 'file' / 'classes.sqlite3'}")
    with pytest.raises(ValueError, match="ATTENTION_LAB_CLASS_STORE"):
        open_store("mysql://x")


def test_acknowledged_answers_survive_redis_killed_and_restarted(tmp_path):
    folder = tmp_path / "r"
    pid = redis_server.start(folder, tmp_path / "redis.log")
    try:
        s = open_store(redis_server.url(folder))
        code, key = s.create()
        s.ask(code, key, [question(n=4, answer=(0,))])
        for i, sid in enumerate(STUDENTS[:25]):
            s.answer(code, sid, "q1", [i % 4])
        redis_server.stop(pid, sig=signal.SIGKILL)            # no shutdown: only what was fsynced remains
        with pytest.raises(StoreDown):
            s.tally(code, "q1", key)
        pid = redis_server.start(folder, tmp_path / "redis.log")
        t = s.tally(code, "q1", key)                           # the same client reconnects by itself
        assert (t.answered, t.counts) == (25, (7, 6, 6, 6))
        s.answer(code, STUDENTS[30], "q1", [0])
        assert s.tally(code, "q1", key).answered == 26
        s.close()
    finally:
        redis_server.stop(pid)
