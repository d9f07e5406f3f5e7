"""The load test's own judgement, on messages built by hand: a student's rerun counts only when it shows its own
words and view; another student's marker anywhere in the bytes is crosstalk; an exception or a wrong head is an
error. Its percentile is numpy's."""
import base64
import random
import threading

import numpy as np
import pytest
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from serve.load import MARKER, Student, Tally, percentile, sentence


def _page(words: list[str], head: str = "L0 H0", extra: str = "") -> list[ForwardMsg]:
    """What the explorer sends, reduced to what the check reads: the token picker, the zoom's heading, the end."""
    picker, heading, caption, done = ForwardMsg(), ForwardMsg(), ForwardMsg(), ForwardMsg()
    picker.delta.new_element.selectbox.id = "$$ID-0123abcd-explorer_token"
    picker.delta.new_element.selectbox.options.extend(words)
    heading.delta.new_element.heading.body = head
    caption.delta.new_element.markdown.body = extra
    done.script_finished = ForwardMsg.FINISHED_SUCCESSFULLY
    return [picker, heading, caption, done]


def _student(idx: int = 7) -> Student:
    return Student(idx, "http://127.0.0.1:1", 0.0, Tally(), threading.Event(), seed=0)


def test_a_rerun_that_shows_the_students_own_words_counts():
    s = _student()
    assert s._check(_page(["[CLS]", "The", s.marker, "[SEP]"]), "head", 1.0, 120.0)
    assert [x.ms for x in s.tally.samples] == [120.0] and not s.tally.errors and not s.tally.crosstalk


@pytest.mark.parametrize("where", ["picker", "caption"])
def test_another_students_marker_anywhere_is_crosstalk(where):
    s, other = _student(7), _student(8)
    words = ["The", s.marker] + ([other.marker] if where == "picker" else [])
    msgs = _page(words, extra=f"<span>{other.marker}</span>" if where == "caption" else "")
    assert not s._check(msgs, "text", 1.0, 100.0)
    assert len(s.tally.crosstalk) == 1 and other.marker in s.tally.crosstalk[0] and not s.tally.samples


def test_missing_own_words_is_crosstalk_and_a_wrong_head_or_an_exception_is_an_error():
    s = _student()
    assert not s._check(_page(["The", "cat"]), "open", 0.0, 50.0)
    assert len(s.tally.crosstalk) == 1
    s.head = 2
    assert not s._check(_page([s.marker], head="L0 H1"), "head", 0.0, 50.0)
    broken = _page([s.marker], head="L0 H2")
    broken[1].delta.new_element.exception.message = "This app has encountered an error."
    assert not s._check(broken, "head", 0.0, 50.0)
    assert len(s.tally.errors) == 2 and "L0 H2" in s.tally.errors[0] and "exception" in s.tally.errors[1]


def test_markers_are_one_per_student_and_never_read_in_base64():
    rng = random.Random(0)
    assert MARKER.fullmatch(_student(7).marker.encode()) and _student(7).marker != _student(17).marker
    assert _student(7).marker in sentence(rng, _student(7).marker)
    noise = base64.b64encode(np.random.default_rng(0).bytes(3_000_000))    # 4 MB of what figures carry
    assert not MARKER.search(noise)


@pytest.mark.parametrize("q", [0, 50, 95, 99, 100])
def test_percentile_is_numpys_linear_percentile(q):
    values = list(np.random.default_rng(1).lognormal(5, 1, 37))
    assert percentile(values, q) == pytest.approx(np.percentile(values, q))
    assert percentile([3.0], q) == 3.0
