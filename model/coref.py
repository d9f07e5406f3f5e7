"""`python -m model.coref "<text>" [--json] [--head L H] [--model NAME]`: every pronoun's antecedent, as
one attention head of the shipped coreference encoder points it (model/tasks/coreference.py). Positions count
whole words with [CLS] and [SEP]; "pieces" lists each word's subword pieces."""
import argparse
import json
import sys

from labels import head_label
from model import checkpoints
from model.data import text_input
from model.tasks.coreference import resolve


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("text")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--head", type=int, nargs=2, metavar=("LAYER", "HEAD"), help="default: the model's coref_head")
    p.add_argument("--model", default="coref_encoder")
    args = p.parse_args(argv)
    model, meta = checkpoints.load(args.model)
    tokenizer = text_input.tokenizer_of(meta)
    head = tuple(args.head or meta["coref_head"])
    L, H = model.config.n_layers, model.config.n_heads
    if not (0 <= head[0] < L and 0 <= head[1] < H):
        p.error(f"--head {head[0]} {head[1]} ({head_label(*head)}) is outside {L} layers x {H} heads "
                f"(L0 H0 to {head_label(L - 1, H - 1)})")
    n = len(text_input.encode(tokenizer, args.text, "cls_sep").ids)
    if n > model.config.max_len:
        p.error(f"the text has {n} tokens; {args.model} reads at most {model.config.max_len}")
    out = resolve(model, tokenizer, args.text, head)
    if args.json:
        json.dump(out, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return
    for p_ in out["pronouns"]:
        print(f"{p_['token']} (#{p_['index']}) -> {p_['antecedent']} (#{p_['antecedent_index']})  {head_label(*head)}")


if __name__ == "__main__":
    main()
