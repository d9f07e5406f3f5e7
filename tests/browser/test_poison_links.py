"""Links that set what no control offers, opened on the real server over the websocket (runtime/link_values.py).
Before, a link value that was a known label was written into the session whatever its key: `/?_inputs_refused=深色`
broke every page of whoever opened it (an internal key), `lab_run=Dark` the training lab, a label in a number box
its page; and a 400-digit number in an integer box overflowed Streamlit's own parser. Now only a bound control reads
its value, each value checked: the page runs, the control shows its default and the sidebar says why; a parameter
with an internal name leaves the address with a notice."""
import pytest

from serve import wire

HUGE = "9" * 400
INTERNAL = [("", "_inputs_refused=深色"), ("", "lang=zh&_inputs_refused=Dark"), ("", "lang=zh&_url_checked=Dark"),
            ("explorer", "_first_view_runs=深色"), ("training_lab", "lab_run=深色"),
            ("training_lab", "lang=zh&lab_run=Dark")]
NUMBERS = [("masks", "masks_n"), ("why_attention", "why_words"), ("why_attention", "why_dims"),
           ("training_lab", "lab_layers"), ("training_lab", "lab_heads"), ("training_lab", "lab_steps"),
           ("lecture", "lecture_step")]


def shown(msgs) -> str:
    return " ".join(wire.texts(msgs) + wire.texts(msgs, "markdown"))


@pytest.mark.parametrize("page,query", INTERNAL)
def test_a_link_cannot_set_the_sessions_internal_state(server_url, page, query):
    with wire.session(server_url, timeout=120) as s:
        first = s.run(page, query)
        assert not wire.elements(first, "exception"), query
        if "=_" in "=" + query.split("&")[-1]:                   # an internal name: it leaves with a notice
            assert "no control of this app reads it" in shown(first) or "本应用没有控件读取它" in shown(first)
        again = s.run("explorer", query)                  # the parameter stays in the address for later pages
        assert not wire.elements(again, "exception"), query


@pytest.mark.parametrize("page,key", NUMBERS)
@pytest.mark.parametrize("value", [HUGE, "Dark"], ids=["400_digits", "label"])
def test_a_number_box_given_a_label_or_a_400_digit_number_by_a_link_shows_its_default(server_url, page, key, value):
    with wire.session(server_url, timeout=120) as s:
        msgs = s.run(page, f"lang=zh&{key}={value}")
    assert not wire.elements(msgs, "exception"), (key, value)
    box = wire.widget(msgs, "number_input", key)
    assert box is not None and not box.HasField("value"), (key, box)     # its default, not the link's value
    assert value[:20] in shown(msgs), shown(msgs)[:500]                   # and the page says what it ignored
