"""Train a shipped model from scratch: `python -m model.train <name> [--seed S] [--threads T]`; a model trained in
resumable runs may instead continue its shipped run with `--from-assets` (on a machine without its checkpoint)."""
import argparse
import os

import torch

from model.checkpoints import CheckpointError
from model.cli import Parser, fail
from model.data import real_text
from model.training import recipes, resumable

MAX_THREADS = 256


def thread_count(text: str) -> int:
    """--threads: 0 (torch's default) up to MAX_THREADS."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= n <= MAX_THREADS:
        raise argparse.ArgumentTypeError(f"{n} threads: give 0 (torch's default) to {MAX_THREADS}")
    return n


def main(argv=None):
    p = Parser(description=__doc__)
    p.add_argument("name", choices=recipes.names())
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=thread_count, default=0, help="torch threads (0 = torch's default)")
    p.add_argument("--from-assets", action="store_true",
                   help="continue the shipped run: its checkpoint rebuilt from assets/<name>.* (the weights and the "
                        "run state their JSON records), then ATTENTION_LAB_RESUME=1")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.from_assets:
        if "checkpoint_min" not in getattr(recipes.get(args.name), "RECIPE", {}):
            fail(f"{args.name} does not train in resumable runs; train it from scratch without --from-assets")
        try:
            state = resumable.checkpoint_from_assets(args.name, real_text.cache_dir())
        except CheckpointError as e:
            fail(e)
        print(f"{args.name}: the shipped run at step {state['steps']:,}, "
              f"{state['run_elapsed_s'] / 60:.1f} of its run's {state['run_budget_s'] / 60:.0f} CPU minutes",
              flush=True)
        os.environ["ATTENTION_LAB_RESUME"] = "1"
    recipes.get(args.name).train(seed=args.seed)


if __name__ == "__main__":
    main()
