"""The hostile-text catalogue on every text box of every page: each input gives a normal result or a
clear message, never an exception, and the same session then works on an ordinary input."""
import pytest

from tests.app.conftest import open_page
from tests.hostile_inputs import TEXTS

# (page, widget key): the boxes where a person types free text; every catalogue entry goes to each.
BOXES = [
    ("explorer.py", "explorer_text"),
    ("coreference.py", "coref_text"),
    ("generation.py", "gen_prompt"),
    ("translation.py", "tr_text"),
    ("step_by_step.py", "steps_text"),
    ("positional.py", "order_a"),
]
_sessions: dict = {}


def _session(page: str):
    """One AppTest per page, reused across the catalogue (as one person trying input after input)."""
    if page not in _sessions:
        _sessions[page] = open_page(page, timeout=120)
    return _sessions[page]


def _box(at, key):
    for widget in list(at.text_area) + list(at.text_input):
        if widget.key == key:
            return widget
    raise AssertionError(f"no text box with key {key!r} on the page")


@pytest.mark.parametrize("name", list(TEXTS))
@pytest.mark.parametrize("page,key", BOXES, ids=[p.removesuffix(".py") for p, _ in BOXES])
def test_hostile_text_then_ordinary_text(page, key, name):
    at = _session(page)
    ordinary = _box(at, key).value or "The restaurant was busy."
    _box(at, key).set_value(TEXTS[name]).run()
    assert not at.exception, [e.message for e in at.exception]
    _box(at, key).set_value(ordinary).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
