"""Evaluate every shipped model: `python -m model.evaluate --json [NAME ...]` prints {model_name: {metric: value}}.
A name that is not a shipped model, or a model whose files cannot be loaded, is one line on stderr, exit status 2."""
import json
import sys

from model import checkpoints
from model.checkpoints import CheckpointError
from model.cli import Parser, fail
from model.tasks import finetuned
from model.training import recipes


def shipped() -> list[str]:
    """Shipped models: those in assets/ and the fine-tuned ones in assets/finetune/."""
    return checkpoints.shipped() + finetuned.shipped()


def evaluate_all(only: list[str] | None = None) -> dict:
    out = {}
    for name in shipped():
        if name not in recipes.names() or (only and name not in only):
            continue
        out[name] = recipes.get(name).evaluate()
    return out


def main(argv=None):
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("names", nargs="*", help="only these models")
    args = p.parse_args(argv)
    for name in args.names:
        if name not in recipes.names():
            fail(f"unknown model {name!r}; choose from {', '.join(recipes.names())}")
        if name not in shipped():
            where = finetuned.folder() if name.startswith("finetune_") else checkpoints.ASSETS
            fail(f"{name} is not shipped: {where / name}.safetensors or .json is missing. "
                 f"Build it with `{checkpoints.retrain_hint(name)}`.")
    try:
        results = evaluate_all(args.names)
    except CheckpointError as e:
        fail(e)
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
