"""The Coreference page with the real pretrained model: its pronoun answer is the head's largest weight on another
content word, as `python -m model.coref --model minilm` reads it; the Ordinary sentences tab shows every model
side by side with the figures `python -m model.evaluate --json` prints for them."""
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from tests.app.conftest import open_link

ROOT = Path(__file__).resolve().parents[2]

TEXT = "The animal didn't cross the street because it was too tired."


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def _cli(*args) -> dict:
    done = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_minilm_points_the_pronoun_as_the_command_does():
    said = _cli("model.coref", TEXT, "--model", "minilm", "--json")["pronouns"][0]
    at = open_link("coreference.py", predict="false", coref_model="minilm", coref_text=TEXT)
    assert at.radio(key="coref_model").value == "minilm"
    assert (f"points **it** (word {said['index']}) at **{said['antecedent']}** (word {said['antecedent_index']})"
            in _markdown(at))
    assert said["antecedent"] == "animal"                      # not [CLS], where most of the head's weight goes


@pytest.fixture(scope="module")
def ordinary():
    return open_link("coreference.py", predict="false", coref_model="minilm", coref_tab="Ordinary sentences")


def test_the_ordinary_sentences_tab_shows_both_models_with_their_evaluated_figures(ordinary):
    figures = _cli("model.evaluate", "--json", "coref_encoder", "minilm")
    table = ordinary.dataframe[0].value
    for name in ("coref_encoder", "minilm"):
        head = figures[name]["coref_realtext_head"]
        column = next(c for c in table.columns if c.startswith(f"{name}, head L{head[0]} H{head[1]}"))
        cells = dict(zip(table["cue"], table[column]))
        for cue, shown in (("gender", "gender (he/she)"), ("number", "number (it/they)"),
                           ("winograd", "Winograd pairs (world knowledge)")):
            assert cells[shown].startswith(f"{figures[name][f'coref_acc_realtext_test_{cue}']:.0%} (")
        assert cells["all test sentences"].startswith(f"{figures[name]['coref_acc_realtext_test']:.0%} (")
    near = dict(zip(table["cue"], table["nearest noun"]))
    assert near["all test sentences"] == f"{figures['minilm']['coref_baseline_nearest_noun_realtext_test']:.0%}"


def _resolved(figures: dict) -> list[str]:
    """The cues whose 95% Wilson interval (written out here) lies above both baselines, from evaluate's accuracies
    and the data file's test counts."""
    rows = [json.loads(line) for line in (ROOT / "model/data/coref_realtext.jsonl").read_text().splitlines()]
    names = {"gender": "gender (he/she)", "number": "number (it/they)", "structure": "structure",
             "winograd": "Winograd pairs (world knowledge)"}
    out, z = [], 1.959963984540054
    for cue, name in names.items():
        n = sum(r["split"] == "test" and r["cue"] == cue for r in rows)
        p = figures[f"coref_acc_realtext_test_{cue}"]
        lo = (p + z * z / (2 * n) - z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)
        base = max(figures[f"coref_baseline_first_noun_realtext_test_{cue}"],
                   figures[f"coref_baseline_nearest_noun_realtext_test_{cue}"])
        if lo > base + 1e-9:
            out.append(name)
    return out


def test_the_verdict_names_what_each_model_resolves(ordinary):
    text = _markdown(ordinary)
    figures = _cli("model.evaluate", "--json", "coref_encoder", "minilm")
    for model in ("minilm", "coref_encoder"):
        good = _resolved(figures[model])
        said = (f"**{model}** resolves: {', '.join(good)}." if good else
                f"**{model}** resolves no kind of these sentences")
        assert said in text


def test_the_arrows_outline_the_answer_not_the_cls_sink():
    said = _cli("model.coref", TEXT, "--model", "minilm", "--json")["pronouns"][0]
    at = open_link("coreference.py", predict="false", coref_model="minilm", coref_text=TEXT)
    spec = next(json.loads(el.proto.spec) for el in at.get("plotly_chart") if "coref_arrows" in el.proto.id)
    outlined = [a["text"] for a in spec["layout"]["annotations"] if a.get("bordercolor") == "#2171b5"]
    assert outlined == [said["antecedent"]]
