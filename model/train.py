"""Train a shipped model from scratch: `python -m model.train <name> [--seed S] [--threads T]`."""
import argparse

import torch

from model.cli import Parser
from model.training import recipes

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
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    recipes.get(args.name).train(seed=args.seed)


if __name__ == "__main__":
    main()
