"""The docs as a newcomer reads them: the README is a front door (at most 150 lines, its two commands first, a row
and a doc for every page, a row for every shipped model), every local link resolves, and every figure the README and
docs/ quote is what `python -m docs.figures` writes from assets/*.json and bench/latest.json now (so a retrained
model or a new benchmark run that is not written into the docs fails here). The writer's own rules are checked on
hand-made sources."""
import json
import math
import re
from pathlib import Path

import pytest

from app_pages import _pages
from docs import figures, models_table, sources
from tests import readme

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")                      # [text](target)


def test_the_committed_docs_hold_the_figures_the_sources_give_now():
    stale = figures.rewrite(check=True)
    assert stale == [], f"run `python -m docs.figures`: {[str(p.relative_to(ROOT)) for p in stale]}"


def test_the_readme_is_a_front_door_of_at_most_150_lines_opening_with_its_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert text.startswith("# Attention Lab\n\n```bash\n")              # the commands come first
    app, test = readme.steps(readme.commands()["app"]), readme.steps(readme.commands()["test"])
    assert app[-1] == "streamlit run app_warmed.py" and "pip install -r requirements.txt" in app
    assert test[-1] == "python -m pytest" and "pip install -r requirements-dev.txt" in test


def test_every_page_has_a_row_in_the_readme_and_a_doc_of_its_own():
    text = README.read_text(encoding="utf-8")
    pages = [Path(str(page[0])).stem for page in _pages.PAGES]
    linked = re.findall(r"^\| \[[^\]]+\]\(docs/pages/(\w+)\.md\) \|", text, re.M)
    assert linked == pages                                               # one row each, in the navigation's order
    assert sorted(p.stem for p in (ROOT / "docs" / "pages").glob("*.md")) == sorted(pages)


def test_every_shipped_model_has_a_row_in_the_models_table_and_a_section_in_the_models_doc():
    shipped = {p.stem for p in [*(ROOT / "assets").glob("*.json"), *(ROOT / "assets" / "finetune").glob("*.json")]
               if "arch" in json.loads(p.read_text(encoding="utf-8"))}
    rows = [row[0] for row in models_table.ROWS]
    assert sorted(rows) == sorted(shipped) and len(rows) == len(set(rows))
    headings = set(re.findall(r"^### `(\w+)`$", (ROOT / "docs" / "models.md").read_text(encoding="utf-8"), re.M))
    assert shipped <= headings                                           # the README's links land on a section


@pytest.mark.parametrize("doc", figures.documents(ROOT), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_local_link_in_the_docs_resolves(doc):
    broken = []
    for target in LINK.findall(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#")[0]
        if not (doc.parent / path).resolve().exists():
            broken.append(target)
    assert broken == []


def test_a_figure_is_printed_at_a_precision_that_fits_its_size():
    assert [sources.show(v) for v in (61.491, 0.98765, 27699, 2264.4, 8.12e-07, 0.0, 1.0, 0.00504)] == [
        "61.5", "0.988", "27,699", "2,264", "8.12e-07", "0", "1.000", "0.00504"]
    assert sources.show([3, 0], "coref_head") == "L3 H0"                 # a head is named as everywhere else
    assert sources.show([64, 16, 4], "tokens_per_stage") == "[64, 16, 4]"
    assert sources.show(None) == sources.show(math.nan) == "–"
    assert sources.show(True) == "true"


def test_inline_figures_and_tables_are_written_from_the_sources_and_a_missing_one_says_so():
    all_metrics = {"m": {"acc": 0.9876, "best_head": [1, 2]}}
    runs = {"part": {"command": "python -m bench --json --only part", "measured": "2026-12-01T10:00Z",
                     "load_average": [1.0, 1.0, 1.0], "figures": {"t_ms": 250.0, "ratio": 2.5}}}
    text = ("acc <!--fig m.acc-->old<!--/fig-->, gone <!--fig m.gone-->0.5<!--/fig-->, "
            "t <!--fig bench.t_ms-->1<!--/fig-->\n"
            "<!-- figures:metrics m acc best_head -->\nstale\n<!-- /figures -->\n"
            "<!-- figures:bench\n  t_ms≤300 ratio≤2 absent -->\n<!-- /figures -->\n")
    out = figures.render(text, all_metrics, runs)
    assert out.startswith("acc <!--fig m.acc-->0.988<!--/fig-->, gone <!--fig m.gone-->–<!--/fig-->, "
                          "t <!--fig bench.t_ms-->250.0<!--/fig-->\n")
    assert "| `acc` | 0.988 |\n| `best_head` | L1 H2 |\n<!-- /figures -->" in out and "stale" not in out
    assert "| `t_ms` | 250.0 | ≤ 300 | yes | `--only part`, 2026-12-01T10:00Z, load 1 |" in out
    assert "| `ratio` | 2.500 | ≤ 2 | no |" in out                           # a missed target is said, not hidden
    assert "| `absent` | – |  |  | – |" in out
    assert figures.render(out, all_metrics, runs) == out                   # writing twice changes nothing


def test_a_model_without_metrics_and_an_unknown_region_are_said_in_words():
    out = figures.render("<!-- figures:metrics nobody -->\n<!-- /figures -->", {}, {})
    assert "`assets/nobody.json` holds no metrics yet." in out
    with pytest.raises(ValueError, match="unknown figures region 'plots'"):
        figures.render("<!-- figures:plots a -->\n<!-- /figures -->", {}, {})


def test_a_stored_benchmark_run_replaces_its_part_and_keeps_the_others(tmp_path, monkeypatch):
    store = tmp_path / "latest.json"
    store.write_text(json.dumps({"other": {"command": "x", "measured": "then", "load_average": [0, 0, 0],
                                           "figures": {"kept": 1}}}), encoding="utf-8")

    class Done:
        stdout = json.dumps({"machine": "x86_64", "python": "3.11", "new_ms": 12.5})

    calls = []
    monkeypatch.setattr(sources.subprocess, "run", lambda cmd, **kw: calls.append(cmd) or Done())
    sources.run_bench(["steps"], store)
    runs = json.loads(store.read_text(encoding="utf-8"))
    assert calls[0][1:] == ["-m", "bench", "--json", "--only", "steps"]
    assert runs["other"]["figures"] == {"kept": 1}
    assert runs["steps"]["figures"] == {"new_ms": 12.5}                 # the machine's name is not a figure
    assert runs["steps"]["command"] == "python -m bench --json --only steps" and len(runs["steps"]["load_average"]) == 3
