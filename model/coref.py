"""`python -m model.coref "<text>" [--json] [--head L H] [--model NAME]`: every pronoun's antecedent, as
one attention head of the shipped coreference encoder points it (model/tasks/coreference.py). Positions count
whole words with [CLS] and [SEP]; "pieces" lists each word's subword pieces. Only a model with a coreference
head (its meta names one, "coref_head": [layer, head], and it reads text as an encoder with [CLS] and [SEP]) is
accepted; every error is one line on stderr, exit status 2."""
import json
import sys

from labels import head_label
from model import checkpoints, languages
from model.checkpoints import CheckpointError
from model.cli import Parser, fail
from model.data import text_input
from model.tasks.coreference import resolve

DEFAULT_MODEL = "coref_encoder"


def has_coref_head(meta: dict) -> bool:
    """Whether a model's meta names a coreference head of a text encoder read with [CLS] and [SEP]."""
    head = meta.get("coref_head")
    return (isinstance(head, list) and len(head) == 2 and all(type(i) is int for i in head)
            and meta["config"].get("kind") == "encoder" and meta.get("text_input") == "cls_sep")


def coref_models(assets=None) -> list[str]:
    """Shipped models with a coreference head (models whose files cannot be read are left out)."""
    return checkpoints.shipped_where(has_coref_head, assets)


def default_model(text: str) -> str:
    """DEFAULT_MODEL, or on mostly Chinese text the shipped Chinese model with a coreference head
    (model.languages)."""
    if not languages.mostly_chinese(text):
        return DEFAULT_MODEL
    chinese = [n for n in coref_models() if languages.reads_chinese(checkpoints.read_meta(n))]
    return chinese[0] if chinese else DEFAULT_MODEL


def load_or_fail(name: str):
    """(model, meta) of a shipped model with a coreference head; otherwise one line on stderr, exit status 2."""
    accepted = ", ".join(coref_models()) or "none is shipped"
    if name not in checkpoints.shipped():
        fail(f"no model {name!r}; models with a coreference head: {accepted}")
    try:
        if not has_coref_head(checkpoints.read_meta(name)):
            fail(f"{name} has no coreference head; models with one: {accepted}")
        return checkpoints.load(name)
    except CheckpointError as e:
        fail(e)


def main(argv=None):
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("text")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--head", type=int, nargs=2, metavar=("LAYER", "HEAD"), help="default: the model's coref_head")
    p.add_argument("--model", help=f"a shipped model with a coreference head (default: {DEFAULT_MODEL}, or a Chinese "
                                   "one on mostly Chinese text when one is shipped)")
    args = p.parse_args(argv)
    args.model = args.model or default_model(args.text)
    model, meta = load_or_fail(args.model)
    tokenizer = text_input.tokenizer_of(meta)
    head = tuple(args.head or meta["coref_head"])
    L, H = model.config.n_layers, model.config.n_heads
    if not (0 <= head[0] < L and 0 <= head[1] < H):
        fail(f"--head {head[0]} {head[1]} ({head_label(*head)}) is outside {L} layers x {H} heads "
             f"(L0 H0 to {head_label(L - 1, H - 1)})")
    n = len(text_input.encode(tokenizer, args.text, "cls_sep").ids)
    if n > model.config.max_len:
        fail(f"the text has {n} tokens; {args.model} reads at most {model.config.max_len}")
    out = resolve(model, tokenizer, args.text, head, candidates=meta.get("coref_candidates", "all"))
    if args.json:
        json.dump(out, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return
    for p_ in out["pronouns"]:
        print(f"{p_['token']} (#{p_['index']}) -> {p_['antecedent']} (#{p_['antecedent_index']})  {head_label(*head)}")


if __name__ == "__main__":
    main()
