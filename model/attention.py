"""`python -m model.attention "<text>" --model NAME --json`: every head's attention on a text,
{"model", "tokens", "weights"}: tokens as the model's tokenizer writes them (its special tokens included),
weights as layers × heads × N × N (row i: how token i's query spreads over the keys). Errors: one line on
stderr, exit status 2."""
import json
import sys

from model import checkpoints, handle, kinds
from model.checkpoints import CheckpointError
from model.cli import Parser, fail
from model.tokens import text_models

MAX_CHARS = 20_000


def single_text_models() -> list[str]:
    """Shipped text models that read one text alone (an encoder or a decoder; not a translator)."""
    return [name for name in text_models()
            if checkpoints.read_meta(name)["kind"] in kinds.TEXT_SELF_ATTENTION]


def main(argv=None):
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("text")
    p.add_argument("--model", default="coref_encoder", help="a shipped text model")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if len(args.text) > MAX_CHARS:
        fail(f"the text has {len(args.text):,} characters; at most {MAX_CHARS:,}")
    models = single_text_models()
    if args.model not in models:
        fail(f"no text model {args.model!r} that reads one text; choose from {', '.join(models)}")
    try:
        run = handle.load(args.model).run(args.text, logits=False)
    except (CheckpointError, ValueError) as e:
        fail(e)
    for notice in run.notices:
        print(f"note: {notice}", file=sys.stderr)
    weights = [[[[round(float(x), 6) for x in row] for row in head] for head in layer] for layer in run.weights]
    if args.json:
        json.dump({"model": args.model, "tokens": list(run.tokens), "weights": weights}, sys.stdout,
                  ensure_ascii=False)
        sys.stdout.write("\n")
        return
    L, H, N, _ = run.weights.shape
    print(f"{args.model}: {L} layers x {H} heads over {N} tokens: {' '.join(run.tokens)}")


if __name__ == "__main__":
    main()
