"""`python -m model.head_roles NAME [--sentences N] [--json] [--write]`: every head's role measured on held-out real
text, as Clark et al. 2019 measured BERT's (model/analysis/head_roles.py): the model reads N passages (default
200) of the real-text corpus's held-out English documents (model/data/real_text.py; a model trained on Chinese
reads the modern-Chinese corpus's, model/data/zh_text.py), each cut at a word boundary to fit 128 tokens with its
special tokens, and the shares of attention and roles of every head are printed; --write
stores them in assets/head_roles/NAME.json, which the explorer shows. Errors: one line on stderr, exit status 2."""
import datetime
import hashlib
import json
import sys

import numpy as np
import torch

from labels import head_label
from model import checkpoints, handle, languages
from model.analysis import head_roles
from model.attention import single_text_models
from model.checkpoints import CheckpointError
from model.cli import Parser, fail
from model.data import real_text, text_input, zh_text, zh_words

DEFAULT_PASSAGES = 200
MAX_PASSAGES = 2000
MAX_TOKENS = 128            # Clark et al. 2019 read segments of up to 128 tokens
MIN_WORDS = 3
SEED = 0
SHORT = {"previous": "prev", "next": "next", "cls": "start", "sep": "end", "punctuation": "punct", "same": "same",
         "entropy_fraction": "entropy"}


def documents(chinese: bool = False) -> list[real_text.Document]:
    """The held-out English documents of the real-text corpus (or, `chinese`, the modern-Chinese corpus's), in a
    fixed shuffled order (seed SEED)."""
    docs = zh_text.corpus().heldout if chinese else [d for d in real_text.load().heldout if d.lang == "en"]
    return [docs[i] for i in np.random.default_rng(SEED).permutation(len(docs))]


def words(text: str, chinese: bool) -> list[str]:
    """The text's words with what follows each up to the next: split at spaces, or as jieba cuts Chinese, so
    "".join(words) is the text (English words keep one space each)."""
    if chinese:
        return [text[a:b] for a, b in zh_words.segments(text)]
    return [w + " " for w in text.split()]


def fit(tokenizer, text: str, rule: str, limit: int, chinese: bool = False) -> str:
    """The text, or its longest prefix of whole words whose encoding, special tokens included, has at most `limit`
    tokens."""
    def size(t: str) -> int:
        return len(text_input.encode(tokenizer, t, rule).ids)
    if size(text) <= limit:
        return text
    parts = words(text, chinese)
    lo, hi = 0, len(parts)              # size of parts[:lo] fits, parts[:hi] does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if size("".join(parts[:mid]).strip()) <= limit else (lo, mid)
    return "".join(parts[:lo]).strip()


def passages(tokenizer, rule: str, n: int, limit: int, chinese: bool = False) -> list[str]:
    """The first n held-out documents of at least MIN_WORDS words, each fitted to `limit` tokens."""
    out = []
    for doc in documents(chinese):
        if len(words(doc.text, chinese)) >= MIN_WORDS:
            out.append(fit(tokenizer, doc.text, rule, limit, chinese))
            if len(out) == n:
                break
    return out


def weights_sha256(name: str, meta: dict) -> str:
    """The sha256 of the weights the measurement ran on: assets/<name>.safetensors, or the installed package's file
    (its hash, checked when loading)."""
    file = checkpoints.ASSETS / f"{name}.safetensors"
    if file.is_file():
        return hashlib.sha256(file.read_bytes()).hexdigest()
    return meta.get("weights", {}).get("sha256", "")


@torch.inference_mode()
def measure(name: str, n: int = DEFAULT_PASSAGES) -> tuple[head_roles.HeadRoles, dict]:
    """(the measurement, its provenance) of a shipped text model on n held-out passages."""
    h = handle.load(name)
    chinese = languages.reads_chinese(h.meta)
    limit = min(MAX_TOKENS, h.model.config.max_len)
    texts = passages(h.tokenizer, h.text_rule, n, limit, chinese)
    runs = ((r.weights, r.tokens) for r in (h.run(t, logits=False) for t in texts))
    result = head_roles.measure(runs)
    source = ({"corpus": "model/data/zh_text.py (docs/data-card-zh.md)", "lang": "zh",
               "documents": len(documents(True))} if chinese else
              {"corpus": "model/data/real_text.py (WordNet 3.0 glosses and examples, English fortunes)", "lang": "en",
               "documents": len(documents())})
    about = {"model": name, "method": "Clark et al. 2019, What does BERT look at? (model/analysis/head_roles.py)",
             "source": {"corpus": source["corpus"], "split": "heldout", "lang": source["lang"],
                        "documents": source["documents"],
                        "selection": f"the held-out documents shuffled with seed {SEED}; the first "
                                     f"{len(texts)} of at least {MIN_WORDS} words, each cut at a word boundary to "
                                     f"fit {limit} tokens with its special tokens"},
             "max_tokens": limit, "weights_sha256": weights_sha256(name, h.meta)}
    return result, about


def table(result: head_roles.HeadRoles) -> str:
    """One line per head: its scores and roles; then how many heads have each role."""
    L, H = result.scores["entropy_fraction"].shape
    lines = ["head   " + " ".join(f"{SHORT[k]:>7}" for k in head_roles.SCORES) + "  roles"]
    for layer in range(L):
        for head in range(H):
            cells = " ".join(f"{result.scores[k][layer, head]:7.3f}" for k in head_roles.SCORES)
            lines.append(f"{head_label(layer, head):6} {cells}  {', '.join(result.roles[layer][head]) or '-'}")
    lines.append(f"{result.passages} passages, {result.tokens} tokens; heads per role: "
                 + ", ".join(f"{role} {count}" for role, count in result.counts().items()))
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("name", help="a shipped text model")
    p.add_argument("--sentences", type=int, default=DEFAULT_PASSAGES, metavar="N",
                   help=f"held-out passages to read (default {DEFAULT_PASSAGES})")
    p.add_argument("--json", action="store_true", help="print one JSON object (what --write stores)")
    p.add_argument("--write", action="store_true", help="store the result in assets/head_roles/NAME.json")
    args = p.parse_args(argv)
    models = single_text_models()
    if args.name not in models:
        fail(f"no text model {args.name!r} that reads one text; choose from {', '.join(models)}")
    if not 1 <= args.sentences <= MAX_PASSAGES:
        fail(f"--sentences must be between 1 and {MAX_PASSAGES}; got {args.sentences}")
    try:
        result, about = measure(args.name, args.sentences)
    except (CheckpointError, real_text.MissingPackage, ValueError) as e:
        fail(e)
    data = head_roles.record(result, **about, command=" ".join(["python -m model.head_roles", *argv]),
                             date=datetime.date.today().isoformat())
    if args.json:
        json.dump(data, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(table(result))
    if args.write:
        out = head_roles.path(args.name, checkpoints.ASSETS)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
