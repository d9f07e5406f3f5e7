"""The decoder page's "Logit lens" tab (AppTest, shipped general_gpt and incontext_copy): the map's cells are what
`python -m model.lens` prints for the same prompt (run as a separate process), its colours the printed probabilities;
the switch to incontext_copy shows the ready-made repeated-span prompt and says in words, from the printed numbers, from
which layer the copied token is predicted; the errors are the page's messages; and in Chinese the tab shows no English
of its own."""
import html
import json
import subprocess
import sys

import numpy as np
import pytest

from app_pages._markup import visible
from app_pages.views.generation import DEFAULT_PROMPT
from app_pages.views.logit_lens import READY_PROMPT
from tests.app.conftest import ROOT, open_link, open_tab, plotly_chart, trace_z
from tests.app.test_chinese import english_left, interface_strings

TAB = "Logit lens"


def lens_cli(prompt: str, model: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "model.lens", prompt, "--model", model, "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def cells(at) -> tuple[list[list[str]], np.ndarray, list[str], list[str]]:
    """(cell texts as drawn, unescaped; z; row labels; column labels) of the lens map."""
    heat, words = plotly_chart(at, "lens_map")["data"]
    z = trace_z(heat)
    flat = [html.unescape(t) for t in words["customdata"]]
    T = z.shape[1]
    return ([flat[r * T:(r + 1) * T] for r in range(z.shape[0])], z, list(heat["y"]),
            [html.unescape(x) for x in heat["x"]])


@pytest.fixture(scope="module")
def at():
    return open_tab("generation.py", "gen_tab", TAB)


def test_the_map_is_what_model_lens_prints_for_the_pages_prompt(at):
    want = lens_cli(DEFAULT_PROMPT, "general_gpt")
    texts, z, rows, columns = cells(at)
    assert texts == [[visible(t) for t in row] for row in want["top"]]
    np.testing.assert_allclose(z, want["prob"], atol=1e-6)
    assert rows == ["embeddings", "L0", "L1", "L2", "L3"]
    assert columns == [f"{visible(t)} ·{i}" for i, t in enumerate(want["tokens"])]
    last = len(want["tokens"]) - 1
    final = want["top"][-1][last]
    start = next(r for r in range(5) if all(row[last] == final for row in want["top"][r:]))
    said = " ".join(m.value for m in at.markdown)
    assert f"the model finally predicts “{visible(final)}”; it is the top token from L{start - 1} on" in said
    assert f"{want['final_rank'][0][last]:,} token" in said


def test_incontext_copy_shows_the_ready_made_prompt_and_says_where_the_copy_appears(at):
    at.radio(key="lens_model").set_value("incontext_copy").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.text_input(key="lens_copy_prompt").value == READY_PROMPT
    want = lens_cli(READY_PROMPT, "incontext_copy")
    texts, z, rows, _columns = cells(at)
    assert texts == want["top"] and rows == ["embeddings", "L0", "L1"]
    np.testing.assert_allclose(z, want["prob"], atol=1e-6)
    # independently of the page's code: where a token occurred before, the token that followed it then
    tokens, top = want["tokens"], want["top"]
    repeats = [(t, tokens.index(tokens[t]) + 1) for t in range(len(tokens)) if tokens[t] in tokens[:t]]
    assert len(repeats) == 8
    first_rows = [next((r for r in range(3) if all(row[t] == tokens[j] for row in top[r:])), None) for t, j in repeats]
    assert first_rows == [2] * 8                                        # after L1, the induction head's layer
    t, j = repeats[0]
    said = " ".join(m.value for m in at.markdown)
    assert "8 of the 8 positions whose token came earlier in the prompt finally predict the token that followed it" \
        in said
    assert (f"From L1 on, position {t} (“{tokens[t]}”) predicts “{tokens[j]}”, the token that followed its earlier "
            f"occurrence at position {j - 1}.") in said
    assert "The copied token is the top prediction from L1 on at 8 positions." in said
    assert len(plotly_chart(at, "lens_map")["layout"]["shapes"]) == 8           # the copy's cells outlined
    at.radio(key="lens_model").set_value("general_gpt").run()


def test_a_typed_copy_prompt_is_read_and_the_ready_made_one_comes_back(at):
    at.radio(key="lens_model").set_value("incontext_copy").run()
    at.text_input(key="lens_copy_prompt").set_value("ka lo mi fu ka lo mi").run()
    assert cells(at)[0] == lens_cli("ka lo mi fu ka lo mi", "incontext_copy")["top"]
    at.text_input(key="lens_copy_prompt").set_value("ba " * 40).run()
    assert [e.value for e in at.error] == ["The prompt is 41 tokens long with [BOS]; this model reads at most 32. "
                                           "Shorten the prompt."]
    at.button(key="lens_ready").click().run()
    assert not at.error and at.text_input(key="lens_copy_prompt").value == READY_PROMPT
    at.radio(key="lens_model").set_value("general_gpt").run()


def test_an_empty_and_a_long_prompt(at):
    at.text_input(key="gen_prompt").set_value("").run()
    assert [e.value for e in at.error] == ["The prompt is empty: type at least one word."]
    long = "The cat sat on the mat and looked at the dog, who sat on the rug by the door."
    at.text_input(key="gen_prompt").set_value(long).run()
    want = lens_cli(long, "general_gpt")
    T = len(want["tokens"])
    assert T > 16 and not at.error
    texts, _z, _rows, columns = cells(at)
    assert texts == [[visible(t) for t in row[:16]] for row in want["top"]]                # the first 16 positions
    at.select_slider(key="lens_from").set_value(T - 16).run()
    texts, _z, _rows, columns = cells(at)
    assert texts == [[visible(t) for t in row[T - 16:]] for row in want["top"]]
    assert columns[-1].endswith(f" ·{T - 1}")
    shorter = "The cat sat on the mat and looked at the dog, who sat by the door."    # still past 16 pieces
    at.text_input(key="gen_prompt").set_value(shorter).run()
    n = len(lens_cli(shorter, "general_gpt")["tokens"])
    assert 16 < n < T and not at.exception and at.select_slider(key="lens_from").value == n - 16
    at.text_input(key="gen_prompt").set_value(DEFAULT_PROMPT).run()


def test_a_link_opens_the_copy_view():
    at = open_link("generation.py", gen_tab=TAB, lens_model="incontext_copy")
    assert at.radio(key="lens_model").value == "incontext_copy" and cells(at)[2] == ["embeddings", "L0", "L1"]


@pytest.mark.parametrize("model", ["general_gpt", "incontext_copy"])
def test_the_tab_speaks_chinese(model):
    at = open_link("generation.py", lang="zh", gen_tab="逻辑透镜", lens_model=model)
    assert [t.label for t in at.tabs][-1] == "逻辑透镜"
    assert plotly_chart(at, "lens_map")["data"][0]["y"][0] == "嵌入层"
    strings, typed = interface_strings(at)
    assert any("逻辑透镜" in s for s in strings)
    assert english_left(strings, typed) == {}
