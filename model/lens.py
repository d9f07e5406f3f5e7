"""`python -m model.lens "<prompt>" [--model NAME] [--json]`: the logit lens of a shipped decoder on a prompt
(model/analysis/logit_lens.py): for the embeddings and after every layer, at every position, the top next token read
through the final norm and the unembedding, its probability, and the rank there of the token the model finally
predicts. The prompt is read by the model's own text rule ([BOS] first). --json prints one object
{"model", "tokens", "top", "prob", "final_rank"}, the last three (layers + 1) × positions; every error is one line
on stderr, exit status 2."""
import json
import sys

from labels import layer_label
from model import checkpoints, handle
from model.analysis import logit_lens
from model.checkpoints import CheckpointError
from model.cli import Parser, fail

DEFAULT_MODEL = "general_gpt"
EMBEDDINGS = "embeddings"          # the first row's name (the page translates it)


def is_decoder(meta: dict) -> bool:
    """Whether a model's meta describes a text decoder (next-token LM read with [BOS] first)."""
    return meta["kind"] == "decoder" and meta.get("text_input") == "bos"


def decoders(assets=None) -> list[str]:
    """Shipped text decoders (models whose files cannot be read are left out)."""
    return checkpoints.shipped_where(is_decoder, assets)


def row_label(row: int) -> str:
    """Row 0 of the lens -> "embeddings", row 1 + i -> "Li"."""
    return EMBEDDINGS if row == 0 else layer_label(row - 1)


def as_json(name: str, lens, tokenizer) -> dict:
    """The command's object: tokens as read, and top (tokens as the tokenizer writes them), prob and final_rank,
    each a list of rows (embeddings, L0, …) of one value per position."""
    return {"model": name, "tokens": list(lens.tokens),
            "top": [[logit_lens.token_text(tokenizer, i) for i in row] for row in lens.top],
            "prob": [[float(p) for p in row] for row in lens.prob],
            "final_rank": [[int(r) for r in row] for row in lens.final_rank]}


def main(argv=None):
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("prompt")
    p.add_argument("--model", default=DEFAULT_MODEL, help="a shipped decoder (default: general_gpt)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    accepted = ", ".join(decoders()) or "none is shipped"
    if args.model not in checkpoints.shipped():
        fail(f"no model {args.model!r}; decoders: {accepted}")
    try:
        if not is_decoder(checkpoints.read_meta(args.model)):
            fail(f"{args.model} is not a decoder; the logit lens reads a decoder's next-token predictions. "
                 f"Decoders: {accepted}")
        h = handle.load(args.model)
    except CheckpointError as e:
        fail(e)
    tokenizer = h.tokenizer
    try:
        lens = logit_lens.read_text(h.model, tokenizer, args.prompt, h.text_rule)
    except logit_lens.LensError as e:
        fail(e)
    out = as_json(args.model, lens, tokenizer)
    if args.json:
        json.dump(out, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return
    width = max(len(row_label(r)) for r in range(len(out["top"])))
    print("position".ljust(width), " | ".join(f"{t}·{i}" for i, t in enumerate(out["tokens"])))
    for r, (top, prob, rank) in enumerate(zip(out["top"], out["prob"], out["final_rank"])):
        print(row_label(r).ljust(width), " | ".join(f"{t!r} {p:.3f} #{k}" for t, p, k in zip(top, prob, rank)))


if __name__ == "__main__":
    main()
