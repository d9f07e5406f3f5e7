"""Evaluate every shipped model: `python -m model.evaluate --json` prints {model_name: {metric: value}}."""
import argparse
import json
import sys

from model import checkpoints
from model.training import recipes


def evaluate_all(only: list[str] | None = None) -> dict:
    out = {}
    for name in checkpoints.shipped():
        if name not in recipes.names() or (only and name not in only):
            continue
        out[name] = recipes.get(name).evaluate()
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("names", nargs="*", help="only these models")
    args = p.parse_args(argv)
    unknown = [n for n in args.names if n not in recipes.names()]
    if unknown:
        p.error(f"unknown model {unknown[0]!r}; choose from {', '.join(recipes.names())}")
    results = evaluate_all(args.names)
    if args.json:
        json.dump(results, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    for name, metrics in results.items():
        print(name)
        for k, v in metrics.items():
            print(f"  {k:32s} {v}")


if __name__ == "__main__":
    main()
