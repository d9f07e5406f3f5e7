"""The Coreference page on Chinese text: it runs zh_coref, says what that model is, and its "Heads ranked" and
"Ordinary sentences" tabs measure it on the Chinese pronoun set with the figures `python -m model.evaluate --json
zh_coref` prints; the tabs that measure English sentences say so."""
import json
import subprocess
import sys

import pytest

from tests.app.conftest import infos, open_link

KITTEN = "小猫没有过马路，因为它太累了。"


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


@pytest.fixture(scope="module")
def figures() -> dict:
    done = subprocess.run([sys.executable, "-m", "model.evaluate", "--json", "zh_coref"], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["zh_coref"]


def _tab(label: str):
    return open_link("coreference.py", predict="false", coref_text=KITTEN, coref_tab=label)


def test_the_intro_describes_the_chinese_model_that_runs():
    at = _tab("Pronoun → heads")
    text = _markdown(at)
    assert "modern Chinese" in text and "他/她/它/他们/她们" in text
    assert "trained here on real English text" not in text
    assert [t.value for t in at.title] == ["Coreference: which head points “它” back to the noun it stands for?"]


def test_the_ordinary_sentences_tab_shows_zh_coref_on_the_chinese_set(figures):
    at = _tab("Ordinary sentences")
    assert "coref_realtext_zh.jsonl" in _markdown(at)
    table = at.dataframe[0].value
    head = figures["coref_realtext_head"]
    column = next(c for c in table.columns if c.startswith(f"zh_coref, head L{head[0]} H{head[1]}"))
    cells = dict(zip(table["cue"], table[column]))
    assert cells["gender + number + structure"].startswith(f"{figures['coref_acc_realtext_test_cued']:.0%} (")
    assert cells["gender (他/她)"].startswith(f"{figures['coref_acc_realtext_test_gender']:.0%} (")
    assert cells["all test sentences"].startswith(f"{figures['coref_acc_realtext_test']:.0%} (")
    near = dict(zip(table["cue"], table["nearest noun"]))
    assert near["gender + number + structure"] == (
        f"{figures['coref_baseline_nearest_noun_realtext_test_cued']:.0%}")
    assert len(table.columns) == 5                     # cue, sentences, two baselines, zh_coref: no English model
    assert "number (它/他们)" in cells and not any("he/she" in c or "it/they" in c for c in cells)


def test_the_heads_ranked_tab_ranks_zh_coref_on_the_chinese_test_split(figures):
    at = _tab("Heads ranked")
    text = _markdown(at)
    head = figures["coref_realtext_head"]
    n_test = figures["coref_realtext_n_test"]
    assert f"Each head of **zh_coref** on the **{n_test}** test sentences" in text
    assert f"**L{head[0]} H{head[1]}**" in text and f"**{figures['coref_acc_realtext_test']:.1%}**" in text
    assert at.get("plotly_chart")


def test_the_minimal_pairs_tab_says_it_measures_english_sentences():
    at = _tab("Minimal pairs")
    assert any("This tab measures English sentences" in i and "zh_coref" in i for i in infos(at))
