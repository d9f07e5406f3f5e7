"""Order blindness (the textbook's 12.3.1): without positions, self-attention is permutation
equivariant, so "the woman ate the raccoon" and "the raccoon ate the woman" give the same vectors,
only reordered. With positions the two runs differ. Runs the shipped encoder both ways and measures it.
"""
from dataclasses import dataclass, field

import numpy as np

from i18n import N_, Message, _
from model.data import text_input
from model.engine.errors import InputError
from model.tasks.attention_run import run_text
from model.tasks.results import TextRun

# The experiment as the positional page opens it and as docs/pages/positional.md quotes it
# (`python -m model.analysis.order`).
MODEL = "coref_encoder"
SENTENCE_A, SENTENCE_B = "The woman ate the raccoon.", "The raccoon ate the woman."


@dataclass
class OrderExperiment:
    """perm: (N,) with tokens_b[i] == tokens_a[perm[i]]. runs: {"off" | "on": (run_a, run_b)};
    errors: {"off" | "on": {"output": max |Δ|, "attention": max |Δ|, "output_scale": max |output|}}
    after undoing the permutation; layer_errors: {"off" | "on": (L,) max |Δ| of attention per layer}."""
    tokens_a: list[str]
    tokens_b: list[str]
    perm: np.ndarray
    runs: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    layer_errors: dict = field(default_factory=dict)
    notices: list = field(default_factory=list)          # i18n.Message: str() in the reader's language


def find_permutation(tokens_a: list[str], tokens_b: list[str]) -> np.ndarray:
    """perm with tokens_b[i] == tokens_a[perm[i]]; repeated tokens are matched in reading order.

    Raises InputError naming the first token that does not match when B is not a reordering of A.
    """
    if len(tokens_a) != len(tokens_b):
        raise InputError(_("the second sentence has {b} tokens and the first {a}: it must use exactly the same "
                           "words, reordered").format(b=len(tokens_b), a=len(tokens_a)))
    free: dict[str, list[int]] = {}
    for i, t in enumerate(tokens_a):
        free.setdefault(t, []).append(i)
    perm = []
    for t in tokens_b:
        if not free.get(t):
            raise InputError(_("'{token}' in the second sentence is not a leftover word of the first: it must use "
                               "exactly the same words, reordered").format(token=t))
        perm.append(free[t].pop(0))
    return np.array(perm)


def permute_run(run: TextRun, perm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reorder a run's final output (N, C) and attention (L, H, N, N) by perm, rows and columns."""
    out = run.hidden[-1][perm]                                             # (N, C)
    weights = run.weights[:, :, perm][:, :, :, perm]                       # (L, H, N, N)
    return out, weights


def permutation_errors(run_a: TextRun, run_b: TextRun, perm: np.ndarray) -> tuple[dict, np.ndarray]:
    """Largest differences between run_b and run_a reordered by perm.

    Returns ({"output", "attention", "output_scale"}, per-layer attention error (L,)).
    """
    out_a, w_a = permute_run(run_a, perm)
    out_b, w_b = run_b.hidden[-1], run_b.weights
    per_layer = np.abs(w_b.astype(np.float64) - w_a).reshape(w_b.shape[0], -1).max(axis=1)
    errors = {"output": float(np.abs(out_b.astype(np.float64) - out_a).max()),
              "attention": float(per_layer.max()),
              "output_scale": float(np.abs(out_b).max())}
    return errors, per_layer


def order_experiment(model, tokenizer, text_a: str, text_b: str, rule: str = "cls_sep") -> OrderExperiment:
    """Run text_a and text_b (a reordering of it) with positions off and on; measure how far the
    second run is from the first one reordered. Encoders only: a causal mask alone breaks the symmetry.
    """
    if model.config.kind != "encoder":
        raise InputError(_("the order experiment needs an encoder; this model is a {kind} (its causal mask already "
                           "depends on order)").format(kind=model.config.kind))
    enc_a, enc_b = text_input.encode(tokenizer, text_a, rule), text_input.encode(tokenizer, text_b, rule)
    limit = model.config.max_len
    if max(len(enc_a.ids), len(enc_b.ids)) > limit:
        raise InputError(_("the sentences have {n} tokens; this model's learned position table stops at "
                           "max_len={limit}").format(n=max(len(enc_a.ids), len(enc_b.ids)), limit=limit))
    perm = find_permutation(enc_a.tokens, enc_b.tokens)
    exp = OrderExperiment(tokens_a=enc_a.tokens, tokens_b=enc_b.tokens, perm=perm)
    unknown = sorted({t for t, u in zip(enc_a.tokens, enc_a.unknown) if u})
    if unknown:
        exp.notices.append(Message(N_("Not in the model's vocabulary (read as [UNK]): {pieces}"),
                                   pieces=", ".join(unknown)))

    for key, positions in (("off", False), ("on", True)):
        run_a = run_text(model, tokenizer, text_a, rule, positions=positions)
        run_b = run_text(model, tokenizer, text_b, rule, positions=positions)
        exp.runs[key] = (run_a, run_b)
        exp.errors[key], exp.layer_errors[key] = permutation_errors(run_a, run_b, perm)
    return exp


def main(argv=None):
    """`python -m model.analysis.order [--model coref_encoder] [A] [B]`: print the measured errors as JSON."""
    import argparse
    import json

    from model import handle
    p = argparse.ArgumentParser(description=main.__doc__)
    p.add_argument("--model", default=MODEL)
    p.add_argument("a", nargs="?", default=SENTENCE_A)
    p.add_argument("b", nargs="?", default=SENTENCE_B)
    args = p.parse_args(argv)
    h = handle.load(args.model)
    exp = order_experiment(h.model, h.tokenizer, args.a, args.b, h.text_rule)
    print(json.dumps({"model": args.model, "a": args.a, "b": args.b,
                      **{f"positions_{k}_{m}": v for k, e in exp.errors.items() for m, v in e.items()}}, indent=1))


if __name__ == "__main__":
    main()
