"""Train a shipped model from scratch: `python -m model.train <name> [--seed S] [--threads T]`."""
import argparse

import torch

from model.training import recipes


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("name", choices=recipes.names())
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=0, help="torch threads (0 = torch's default)")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    recipes.get(args.name).train(seed=args.seed)


if __name__ == "__main__":
    main()
