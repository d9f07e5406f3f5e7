"""Tokenize text from the command line: `python -m model.tokenize "<text>" [--model NAME] [--masks] --json` prints
{"pieces": [...], "ids": [...], "unk": count, "decoded": "..."}. Without --model: the shipped byte-level BPE
(model/data/bpe.py); with it, the tokenizer stored in assets/NAME.json under "tokenizer"."""
import json
import sys
from pathlib import Path

from model import checkpoints
from model.checkpoints import CheckpointError
from model.cli import Parser
from model.data import text_input


def text_models(assets: Path | None = None) -> list[str]:
    """Shipped models that store a text tokenizer (those whose files cannot be read are left out)."""
    return checkpoints.shipped_where(lambda meta: isinstance(meta.get("tokenizer"), dict), assets)


def load_tokenizer(model: str | None = None, assets: Path | None = None):
    """The tokenizer stored in a shipped text model's assets/<model>.json (read by model.checkpoints.read_meta,
    bounded), or the shipped BPE when model is None. FileNotFoundError for a name that is no shipped text model,
    ValueError for a config that cannot be read."""
    if model is None:
        from model.data.bpe import load
        return load()
    assets = Path(assets or checkpoints.ASSETS)                 # read at call time (tests may point it elsewhere)
    known = ", ".join(text_models(assets))
    if model not in checkpoints.shipped(assets):
        raise FileNotFoundError(f"no model {model!r} in {assets} (known: {known})")
    try:
        spec = checkpoints.read_meta(model, assets).get("tokenizer")
    except CheckpointError as e:
        raise ValueError(str(e)) from e
    if not isinstance(spec, dict):
        raise ValueError(f"{model} stores no text tokenizer (text models: {known})")
    try:
        return text_input.tokenizer_from_spec(spec)
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"{Path(assets) / model}.json: its tokenizer cannot be read ({e!r})") from e


def tokenize(text: str, model: str | None = None, masks: bool = False) -> dict:
    """{"pieces", "ids", "unk", "decoded"} for `text` under the chosen tokenizer."""
    from model.data.bpe import UNK, BPETokenizer
    tok = load_tokenizer(model)
    if not isinstance(tok, BPETokenizer):           # word tokenizer: pieces are words, unknown ones are [UNK]
        enc = tok.encode(text)
        return {"pieces": enc.tokens, "ids": enc.ids, "unk": sum(enc.unknown),
                "decoded": tok.decode(enc.ids, skip_special=False)}
    enc = tok.encode(text, masks=masks)
    return {"pieces": enc.pieces, "ids": enc.ids, "unk": enc.ids.count(UNK), "decoded": tok.decode(enc.ids)}


def main(argv=None) -> int:
    parser = Parser(description=__doc__.split("\n")[0])
    parser.add_argument("text")
    parser.add_argument("--model", default=None, help="a shipped model's name (assets/NAME.json)")
    parser.add_argument("--masks", action="store_true", help="'[MASK]' and '<mask>' become the mask token")
    parser.add_argument("--json", action="store_true", help="print JSON (the default prints pieces)")
    args = parser.parse_args(argv)
    try:
        out = tokenize(args.text, args.model, args.masks)
    except (FileNotFoundError, ValueError, ImportError) as e:
        print("error: " + str(e).replace("\n", " "), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(" | ".join(out["pieces"]))
        print(f"{len(out['ids'])} tokens, {out['unk']} unknown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
