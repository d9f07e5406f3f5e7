"""Step-by-step figures: the float64 numpy extraction of every step a page rerun shows (one head, all
heads + W_O, the layer trace post- and pre-LN, the causal variant, the four-way agreement) against the
model's own captured forward pass on the same 32 tokens, measured side by side; the largest |difference|
to the model's explicit path over every layer and head of each shipped text model; and softmax saturation."""
import numpy as np
import torch

from bench._timing import wall_ms
from model import checkpoints, kinds
from model.analysis import steps
from model.data import bpe, text_input
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer

TEXT = ("The restaurant refused to serve me a ham sandwich because it was too salty. The waiter said that "
        "the cook had gone home and the kitchen was closed for the night.")


def _text_models() -> list[str]:
    out = []
    for name in checkpoints.shipped():
        meta = checkpoints.read_meta(name)
        if meta.get("modality", "text") == "text" and meta["kind"] in kinds.TEXT_SELF_ATTENTION:
            out.append(name)
    return out


def _rerun(model, hidden, layer, head, token, mask, tokens):
    s = steps.head_steps(model, hidden[layer], layer, head, mask, tokens)
    steps.agreement(s, model, mask)
    steps.multi_head(model, hidden[layer], layer, mask)
    for norm in ("post", "pre"):
        steps.layer_trace(model, hidden[layer], layer, token, mask, norm)
    causal = np.tril(np.ones((len(tokens), len(tokens)), bool))
    steps.agreement(steps.head_steps(model, hidden[layer], layer, head, causal, tokens), model, causal)


def run(quick: bool = False) -> dict:
    torch.set_num_threads(1)
    names = _text_models()
    if names:
        model, meta = checkpoints.load(names[0])
        tok, rule = text_input.tokenizer_of(meta), text_input.rule_of(meta)
    else:                        # nothing shipped yet: a random model of the shipped size, on the shipped BPE
        tok = bpe.load()
        model = Transformer(ModelConfig(vocab_size=len(tok), d_model=128, n_heads=4, n_layers=4, d_ff=512)).eval()
        rule = "cls_sep"
    ids, tokens, _ = steps.encode_text(model, tok, TEXT, rule)
    mask = steps.model_mask(model, len(ids))
    hidden = steps.layer_inputs(model, ids)
    repeats = 3 if quick else 10
    forward_ms = wall_ms(lambda: steps.layer_inputs(model, ids), repeats)
    rerun_ms = wall_ms(lambda: _rerun(model, hidden, 1, 0, len(ids) // 2, mask, tokens), repeats)
    figures = {"steps_model": names[0] if names else "random", "steps_tokens": len(ids),
               "steps_forward_capture_ms": forward_ms, "steps_page_rerun_numpy_ms": rerun_ms,
               "steps_rerun_over_forward": rerun_ms / forward_ms}
    for name in names:
        m, meta = checkpoints.load(name)
        ids, tokens, _ = steps.encode_text(m, text_input.tokenizer_of(meta), TEXT, text_input.rule_of(meta))
        mask, hidden = steps.model_mask(m, len(ids)), steps.layer_inputs(m, ids)
        worst = max(max(steps.agreement(steps.head_steps(m, hidden[layer], layer, h, mask), m, mask).values())
                    for layer in range(m.config.n_layers) for h in range(m.config.n_heads))
        figures[f"steps_{name}_max_abs_diff_all_heads"] = worst
    sat = steps.saturation([16, 1024], n_keys=8, n_samples=256, seed=0)
    for i, d in enumerate(sat["d_k"]):
        for key in ("max_scaled", "max_unscaled", "grad_scaled", "grad_unscaled"):
            figures[f"steps_softmax_{key}_dk{d}"] = float(sat[key][i])
    return figures
