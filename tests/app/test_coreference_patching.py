"""The Coreference page's Patching tab in AppTest: on the trophy/suitcase pair it names a layer and a position whose
patch flips the answer, and `python -m model.patch` says the same of that cell; a clicked cell shows its run; the
paragraph against a one-word change, minilm (whose answer the pair does not change), a pair that cannot be patched
and the Chinese page each say what they should."""
import json
import re
import subprocess
import sys

import pytest

from app_pages.views.coreference_patching import CELL, ONE_WORD
from model import checkpoints, coref
from model.data import course_world as corpus
from model.data import text_input
from tests.app.conftest import open_link

TROPHY = next(p for p in corpus.MINIMAL_PAIRS if p[0] == "big / small")
NAMED = re.compile(r"entering \*\*(L\d+)\*\* at the word \*\*(.+?)\*\* \(piece “(.+?)”, position (\d+)\) flips the "
                   r"answer from \*\*(.+?)\*\* to \*\*(.+?)\*\*")


def _text(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [i.value for i in at.info] + [w.value for w in at.warning])


def _command(*args) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "model.patch", *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def page():
    return open_link("coreference.py", predict="false", coref_tab="Patching")


def test_the_trophy_pair_names_a_flipping_cell_and_the_command_agrees(page):
    assert page.text_input(key="coref_patch_a").value == TROPHY[1]
    assert page.text_input(key="coref_patch_b").value == TROPHY[2]
    found = NAMED.search(_text(page))
    assert found, _text(page)
    layer, word, piece, t, before, after = found.groups()
    assert (before, after) == ("suitcase", "trophy")                      # B's answer, then A's
    got = json.loads(_command(TROPHY[1], TROPHY[2], "--model", "coref_encoder", "--json").stdout)
    i, t = int(layer[1:]), int(t)
    assert got["tokens_b"][t].strip() == piece and got["answer_flips"][i][t] is True
    said = _command(TROPHY[1], TROPHY[2], "--model", "coref_encoder").stdout
    assert f"{layer} piece {t} {got['tokens_b'][t]!r}: answer -> {after} " in said
    assert len(page.get("plotly_chart")) == 6                             # map, three arrows, split, writers
    assert "To **trophy**: the score changes by" in _text(page)


def test_a_clicked_cell_shows_its_run_and_its_answer_is_the_commands(page):
    got = json.loads(_command(TROPHY[1], TROPHY[2], "--json").stdout)
    t = got["tokens_b"].index(" it")
    page.session_state[CELL] = (2, t)
    page.run()
    assert not page.exception
    assert f"**The run of cell L2 · “it” (position {t})**" in _text(page)
    assert "Its answer: **trophy**" in _text(page) and got["answer_flips"][2][t] is True
    page.session_state[CELL] = (0, 1)                                      # "The": nothing changes
    page.run()
    assert "Its answer: **suitcase**" in _text(page) and got["answer_flips"][0][1] is False


def test_the_paragraph_against_one_word_changed_names_where_the_answer_flips():
    title, a, b = ONE_WORD
    at = open_link("coreference.py", predict="false", coref_tab="Patching", coref_patch_pair=title,
                   coref_patch_a=a, coref_patch_b=b)
    model, meta = checkpoints.load("coref_encoder")
    tok, head = text_input.tokenizer_of(meta), tuple(meta["coref_head"])
    answer_a, answer_b = (coref.resolve(model, tok, t, head)["pronouns"][0]["antecedent"] for t in (a, b))
    if answer_a == answer_b:                          # the model reads both alike: nothing to flip, and it says so
        assert f"A and B get the same answer, **{answer_a}**, so no patch can flip it to A's." in _text(at)
    else:
        found = NAMED.search(_text(at))
        assert found and (found.group(5), found.group(6)) == (answer_b, answer_a)


def test_minilm_answers_both_sentences_alike_and_the_page_says_so():
    at = open_link("coreference.py", predict="false", coref_model="minilm", coref_tab="Patching")
    assert "A and B get the same answer, **suitcase**, so no patch can flip it to A's." in _text(at)


def test_a_pair_that_cannot_be_patched_says_why():
    at = open_link("coreference.py", predict="false", coref_tab="Patching", coref_patch_a="The cat sat on the mat.",
                   coref_patch_b="The dog sat on the mat.")
    assert "Both sentences need a pronoun (it, they, their, …)." in _text(at)
    assert not at.get("plotly_chart")


def test_the_tab_speaks_chinese():
    at = open_link("coreference.py", predict="false", coref_tab="激活修补", lang="zh")
    text = _text(at)
    assert "激活修补" in text and "翻转为" in text and "分数拆分" in "\n".join(s.value for s in at.subheader)
