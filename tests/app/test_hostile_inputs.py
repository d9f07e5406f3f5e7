"""The hostile-text catalogue on every text box of every page: each input gets the messages the catalogue
names for that page (and no error where it names none), never an exception, and the same session then
works on an ordinary input."""
import html
import re

import pytest

from harness.hostile_inputs import CATALOGUE
from tests.app.conftest import open_page

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


def as_read(markdown: str) -> str:
    """A message as a person reads it: markdown's backslash escapes (of ASCII punctuation only, as in
    CommonMark) and HTML entities undone."""
    return html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown))


def shown(at) -> dict[str, list[str]]:
    return {kind: [as_read(e.value) for e in getattr(at, kind)] for kind in ("error", "warning", "info")}


def missing(expected, messages: dict[str, list[str]]) -> list:
    """The (kind, part) pairs of `expected` that no message of that kind contains."""
    return [(kind, part) for kind, part in expected if not any(part in m for m in messages[kind])]


def test_as_read_undoes_markdown_escapes_and_entities():
    assert as_read(r"Not in the model's vocabulary \(read as \[UNK\]\): \$, \\, &quot;, “\”") == \
        "Not in the model's vocabulary (read as [UNK]): $, \\, \", “\\”"


@pytest.mark.parametrize("name", list(CATALOGUE))
@pytest.mark.parametrize("page,key", BOXES, ids=[p.removesuffix(".py") for p, _ in BOXES])
def test_hostile_text_gets_its_message_then_ordinary_text_works(page, key, name):
    at = _session(page)
    ordinary = _box(at, key).value or "The restaurant was busy."
    _box(at, key).set_value(CATALOGUE[name].text).run()
    assert not at.exception, [e.message for e in at.exception]
    messages = shown(at)
    expected = CATALOGUE[name].says.get(page.removesuffix(".py"), ())
    assert not missing(expected, messages), messages
    if not any(kind == "error" for kind, _ in expected):
        assert not messages["error"], messages["error"]
    if page != "translation.py":                       # the translator alone keeps word vocabularies
        assert not any("[UNK]" in m for ms in messages.values() for m in ms), messages
    _box(at, key).set_value(ordinary).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
