"""Write the figures the docs quote from what the code measured, so they never drift: `python -m docs.figures`
rewrites every marked region of README.md and docs/**/*.md; `--check` changes nothing and exits 1 naming the
files whose figures differ; `--bench PART [PART ...]` first reruns those benchmark parts and stores them in
bench/latest.json (docs/sources.py says where each figure comes from).

Marks (HTML comments: invisible where the Markdown is rendered):
  <!-- figures:models -->…<!-- /figures -->                   the README's table of shipped models
  <!-- figures:metrics MODEL [KEY …] -->…<!-- /figures -->    a table of one model's metrics (all when none named)
  <!-- figures:bench KEY[≤|≥|<|>|=TARGET] … -->…<!-- /figures --> benchmark figures with their target and run
  <!--fig MODEL.KEY-->0.990<!--/fig-->                           one figure inside a sentence ("bench.KEY" for a
                                                                 benchmark figure)"""
import argparse
import re
import sys
from pathlib import Path

from docs import models_table, sources
from docs.sources import show

REGION = re.compile(r"(<!-- figures:(?P<kind>\w+)(?P<args>[^>]*?) -->\n)(?P<body>.*?)(<!-- /figures -->)", re.S)
INLINE = re.compile(r"(<!--fig (?P<source>[\w-]+)\.(?P<key>\w+)-->)(?P<body>.*?)(<!--/fig-->)")
TARGET = re.compile(r"^(?P<key>\w+)(?:(?P<op>≤|≥|<|>|=)(?P<bound>.+))?$")
CHECKS = {"≤": float.__le__, "≥": float.__ge__, "<": float.__lt__, ">": float.__gt__, "=": float.__eq__}


def documents(root: Path = sources.ROOT) -> list[Path]:
    """README.md and every Markdown file under docs/."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def metrics_table(all_metrics: dict, args: list[str]) -> list[str]:
    """`figures:metrics MODEL [KEY …]`: one row per key, every metric of the model when no key is named."""
    model, keys = args[0], args[1:]
    figures = all_metrics.get(model, {})
    keys = keys or list(figures)
    if not keys:
        return [f"`assets/{model}.json` holds no metrics yet."]
    return ["| figure | value |", "|---|---|", *(f"| `{k}` | {show(figures.get(k), k)} |" for k in keys)]


def met(value, op: str | None, bound: str | None) -> str:
    """"yes" / "no" against the target, "" without one or without a number."""
    if op is None or not isinstance(value, (int, float)) or isinstance(value, bool):
        return ""
    return "yes" if CHECKS[op](float(value), float(bound)) else "no"


def bench_table(runs: dict, args: list[str]) -> list[str]:
    """`figures:bench KEY[opTARGET] …`: value, target, whether met, and the stored run it comes from (when, and the
    machine's 1-minute load average as it started)."""
    lines = ["| figure | value | target | met | run |", "|---|---|---|---|---|"]
    for arg in args:
        spec = TARGET.match(arg)
        if spec is None:
            raise ValueError(f"not a benchmark figure with an optional target: {arg!r}")
        key, op, bound = spec["key"], spec["op"], spec["bound"]
        value, part = sources.bench_figure(runs, key)
        run = runs.get(part, {})
        where = f"`--only {part}`, {run['measured']}, load {run['load_average'][0]:g}" if part else sources.MISSING
        target = f"{op} {bound}" if op else ""
        lines.append(f"| `{key}` | {show(value, key)} | {target} | {met(value, op, bound)} | {where} |")
    return lines


def render(text: str, all_metrics: dict, runs: dict) -> str:
    """The text with every marked region and inline figure rewritten from the sources."""
    def region(m: re.Match) -> str:
        kind, args = m["kind"], m["args"].split()
        if kind == "models":
            lines = models_table.table(all_metrics)
        elif kind == "metrics":
            lines = metrics_table(all_metrics, args)
        elif kind == "bench":
            lines = bench_table(runs, args)
        else:
            raise ValueError(f"unknown figures region {kind!r}: models, metrics or bench")
        return m.group(1) + "\n".join(lines) + "\n" + m.group(5)

    def inline(m: re.Match) -> str:
        source, key = m["source"], m["key"]
        value = sources.bench_figure(runs, key)[0] if source == "bench" else all_metrics.get(source, {}).get(key)
        return m.group(1) + show(value, key) + m.group(5)

    return INLINE.sub(inline, REGION.sub(region, text))


def rewrite(check: bool = False, root: Path = sources.ROOT) -> list[Path]:
    """The documents whose figures differ from the sources; written unless `check`."""
    all_metrics, runs = sources.metrics(), sources.bench_runs()
    stale = []
    for path in documents(root):
        text = path.read_text(encoding="utf-8")
        new = render(text, all_metrics, runs)
        if new != text:
            stale.append(path)
            if not check:
                path.write_text(new, encoding="utf-8")
    return stale


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 if a document's figures differ")
    p.add_argument("--bench", nargs="+", metavar="PART", help="rerun these benchmark parts first (bench/<PART>.py)")
    args = p.parse_args(argv)
    if args.bench:
        sources.run_bench(args.bench)
    stale = rewrite(check=args.check)
    for path in stale:
        print(f"{'differs' if args.check else 'rewrote'}: {path.relative_to(sources.ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
