"""Where the docs' figures come from: each shipped model's `metrics` (assets/<name>.json and
assets/finetune/<name>.json, written by its recipe; `python -m model.evaluate --json` reproduces them) and the
benchmark figures stored in bench/latest.json (`python -m bench --json --only PART`, one entry per part).

bench/latest.json: {part: {"command", "measured" (UTC, ISO 8601), "load_average" (1, 5, 15 min at the start),
"figures": {key: value}}}."""
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

from labels import head_label

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"
BENCH = ROOT / "bench" / "latest.json"
MISSING = "–"                                     # a figure no source holds (yet)


def metrics() -> dict[str, dict]:
    """{model name: its metrics} for every asset JSON that has a metrics dict."""
    out = {}
    for path in sorted([*ASSETS.glob("*.json"), *(ASSETS / "finetune").glob("*.json")]):
        meta = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(meta, dict) and isinstance(meta.get("metrics"), dict):
            out[path.stem] = meta["metrics"]
    return out


def bench_runs(path: Path = BENCH) -> dict[str, dict]:
    """The stored runs, {part: {"command", "measured", "load_average", "figures"}}; {} when none is stored."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def bench_figure(runs: dict[str, dict], key: str) -> tuple[object, str | None]:
    """(value, the part whose run holds it) of one benchmark figure; (None, None) when no run holds it."""
    for part, run in runs.items():
        if key in run["figures"]:
            return run["figures"][key], part
    return None, None


def run_bench(parts: list[str], path: Path = BENCH) -> None:
    """Run `python -m bench --json --only PART` for each part (one process each, as a person would) and store its
    figures in bench/latest.json, replacing that part's earlier run and keeping the others."""
    runs = bench_runs(path)
    for part in parts:
        command = [sys.executable, "-m", "bench", "--json", "--only", part]
        load = [round(x, 2) for x in os.getloadavg()]
        measured = time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime())
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
        figures = {k: v for k, v in json.loads(done.stdout).items() if k not in ("machine", "python")}
        runs[part] = {"command": f"python -m bench --json --only {part}", "measured": measured,
                      "load_average": load, "figures": figures}
    path.write_text(json.dumps(dict(sorted(runs.items())), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def show(value, key: str = "") -> str:
    """One figure as the docs print it: a head (a key ending in "_head": [layer, head]) as "L3 H0", ints with
    thousands separators, floats to three decimals (one at 10 or more, none at 1,000 or more, three significant
    digits below 0.01), lists item by item; "–" for a figure that is absent or NaN."""
    if key.endswith("_head") and isinstance(value, list) and len(value) == 2:
        return head_label(*value)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        size = abs(value)
        if size == 0 or size >= 1000:
            return f"{value:,.0f}"
        if size >= 10:
            return f"{value:.1f}"
        return f"{value:.3f}" if size >= 0.01 else f"{value:.3g}"
    if isinstance(value, list):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return str(value)
