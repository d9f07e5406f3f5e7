"""The Chinese models' tokenizer: the same byte-level BPE as the English one (model/data/bpe.py: every byte a base
symbol, so no text needs [UNK]; each CJK character its own pre-token, so merges stay inside one character),
learned from the train split of the modern-Chinese corpus (model/data/zh_text.py). Its merges join the three
UTF-8 bytes of a character, so the characters that occur often there become whole tokens, and the Latin words of
the manuals (commands, file names) become subwords.
Train with `python -m model.data.zh_tokenizer --train` (deterministic: the same corpus gives the same file)."""
import argparse
from functools import lru_cache
from pathlib import Path

from model.data import bpe

FILE = "bpe_zh_8k.json"
VOCAB = 8192


@lru_cache(maxsize=1)
def load() -> bpe.BPETokenizer:
    """The shipped Chinese tokenizer (assets/bpe_zh_8k.json), loaded once."""
    return bpe.BPETokenizer.from_file(FILE)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Train the Chinese models' byte-level BPE on the Chinese corpus.")
    parser.add_argument("--train", action="store_true", help="train on the corpus' train split and save")
    parser.add_argument("--vocab", type=int, default=VOCAB)
    parser.add_argument("--out", default=str(bpe.ASSETS / FILE))
    args = parser.parse_args(argv)
    if not args.train:
        parser.error("nothing to do: pass --train")
    from model.data import zh_text
    docs = zh_text.load().train
    tok = bpe.train([d.text for d in docs], args.vocab)
    Path(args.out).write_text(tok.tokenizer.to_str(pretty=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(tok)} tokens, trained on {len(docs)} documents")


if __name__ == "__main__":
    main()
