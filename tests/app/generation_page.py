"""What the generation page's AppTests share: the page opened once per module, the shipped decoder and encoder, and
how a test reads the page and opens its lazy tabs."""
import re

import pytest

from model import checkpoints
from model.data import bpe
from tests.app.conftest import open_page

EMPTY = "The prompt is empty: type at least one word."
NOTHING_MASKED = "Nothing is masked: type [MASK] or <mask> in the text, or pick a word to hide."


@pytest.fixture(scope="module")
def at():
    at = open_page("generation.py", timeout=120)
    assert not at.exception, at.exception
    return at


@pytest.fixture(scope="module")
def gpt():
    model, meta = checkpoints.load("general_gpt")
    return model, meta, bpe.load()


@pytest.fixture(scope="module")
def encoder():
    model, _ = checkpoints.load("general_encoder")
    return model


def generated(at) -> str:
    """The generated text (the page's first markdown) as a person reads it: bold marks, hair spaces, hard breaks
    and escapes undone."""
    md = at.markdown[0].value
    return re.sub(r"\\(.)", r"\1", md.replace("**", "").replace("\u200a", "").replace("  \n", "\n"))


def texts(at) -> list[str]:
    return [e.value for kind in ("markdown", "caption", "error", "warning", "info", "metric")
            for e in getattr(at, kind)]


def show(at, tab: str):
    """Open a tab (the tabs are lazy: only the open one runs) and rerun."""
    at.session_state["gen_tab"] = tab
    at.run()
    assert not at.exception, [e.message for e in at.exception]


def set_prompt(at, text):
    at.text_input(key="gen_prompt").set_value(text).run()
    assert not at.exception, [e.message for e in at.exception]

