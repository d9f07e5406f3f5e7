"""Tokenize text from the command line: `python -m model.tokenize "<text>" [--model NAME] [--masks] --json` prints
{"pieces": [...], "ids": [...], "unk": count, "decoded": "..."}. Without --model: the shipped byte-level BPE
(model/data/bpe.py); with it, the tokenizer stored in assets/NAME.json under "tokenizer"."""
import argparse
import json
import sys
from pathlib import Path

from model.data import text_input

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def load_tokenizer(model: str | None = None, assets: Path = ASSETS):
    """The tokenizer of assets/<model>.json, or the shipped BPE when model is None."""
    if model is None:
        from model.data.bpe import load
        return load()
    path = Path(assets) / f"{model}.json"
    if not path.exists():
        known = sorted(p.stem for p in Path(assets).glob("*.json") if p.with_suffix(".safetensors").exists())
        raise FileNotFoundError(f"no model {model!r} in {assets} (known: {', '.join(known)})")
    spec = json.loads(path.read_text(encoding="utf-8")).get("tokenizer")
    if not isinstance(spec, dict):
        raise ValueError(f"{path} holds no tokenizer")
    return text_input.tokenizer_from_spec(spec)


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
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("text")
    parser.add_argument("--model", default=None, help="a shipped model's name (assets/NAME.json)")
    parser.add_argument("--masks", action="store_true", help="'[MASK]' and '<mask>' become the mask token")
    parser.add_argument("--json", action="store_true", help="print JSON (the default prints pieces)")
    args = parser.parse_args(argv)
    try:
        out = tokenize(args.text, args.model, args.masks)
    except (FileNotFoundError, ValueError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(" | ".join(out["pieces"]))
        print(f"{len(out['ids'])} tokens, {out['unk']} unknown")
    return 0


if __name__ == "__main__":
    sys.exit(main())
