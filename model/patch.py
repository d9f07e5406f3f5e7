"""`python -m model.patch "<text A>" "<text B>" --model NAME --json`: activation patching on a minimal pair
(model/analysis/patching.py). Each residual state of A (the stream entering layer l at piece t of B, aligned) is
copied into B's run alone; prints {"model", "tokens_a", "tokens_b", "pronoun", "candidates", "effect",
"answer_flips"}: tokens as the model's tokenizer writes them ([CLS] and [SEP] included), the first pronoun, B's
content words before it, effect: layers × positions of B, the change in the coreference head's word-level weight
from the pronoun to the right antecedent (run A's answer), null where the position has no counterpart in A;
answer_flips: layers × positions, whether the patched run's answer differs from B's. Only a model with a
coreference head is accepted (model.coref.coref_models); every error is one line on stderr, exit status 2."""
import json
import math
import sys

from labels import layer_label
from model.cli import Parser, fail
from model.coref import load_or_fail
from model.data import text_input

MAX_CHARS = 20_000


def as_json(name: str, pm) -> dict:
    """The command's object for a model.analysis.patching.PatchMap."""
    pair = pm.pair
    effect = [[None if math.isnan(x) else round(float(x), 6) for x in row] for row in pm.effect]
    return {"model": name, "tokens_a": list(pair.a.tokens), "tokens_b": list(pair.b.tokens),
            "pronoun": pair.b.word_texts[pair.pronoun], "candidates": [pair.b.word_texts[j] for j in pair.candidates],
            "effect": effect, "answer_flips": [[bool(x) for x in row] for row in pm.flips]}


def main(argv=None):
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("text_a")
    p.add_argument("text_b")
    p.add_argument("--model", default="coref_encoder", help="a shipped model with a coreference head")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    for label, text in (("A", args.text_a), ("B", args.text_b)):
        if len(text) > MAX_CHARS:
            fail(f"text {label} has {len(text):,} characters; at most {MAX_CHARS:,}")
    model, meta = load_or_fail(args.model)
    from model.analysis.patching import patch_map
    try:
        pm = patch_map(model, text_input.tokenizer_of(meta), args.text_a, args.text_b, tuple(meta["coref_head"]),
                       meta.get("coref_candidates", "all"))
    except ValueError as e:
        fail(e)
    if args.json:
        json.dump(as_json(args.model, pm), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return
    pair, words = pm.pair, pm.pair.b.word_texts
    print(f"{args.model}: A answers {pair.a.word_texts[pm.answer_a_own]}, B answers {words[pm.answer_b]} "
          f"(the pronoun {words[pair.pronoun]!r})")
    for layer, t in zip(*pm.flips.nonzero()):
        print(f"{layer_label(layer)} piece {t} {pair.b.tokens[t]!r}: answer -> {words[pm.answers[layer, t]]} "
              f"(effect {pm.effect[layer, t]:+.3f})")


if __name__ == "__main__":
    main()
