"""The logit lens's speed (model/analysis/logit_lens.py): every row of the residual stream of a 64-piece prompt on the
shipped general_gpt read through the final norm and the unembedding (one forward pass with the stream kept, one
(R·T, C) @ (C, V) product, the ranks), on one torch thread, CPU time. Target: `lens_ms_n64` ≤ 200 ms."""
import torch

from bench._timing import cpu_ms
from model import checkpoints
from model.analysis import logit_lens
from model.data import text_input

TEXT = ("The restaurant refused to serve me a ham sandwich because it only cooks vegetarian food. I ordered the soup "
        "instead, and the waiter, who had been watching the rain all afternoon, brought it with a piece of warm bread "
        "and a small dish of olives that nobody had asked for.")


def run(quick: bool = False) -> dict:
    """{"lens_ms_n64": median CPU ms of logit_lens.lens on [BOS] + 64 pieces, one thread}."""
    model, meta = checkpoints.load("general_gpt")
    ids = text_input.encode(text_input.tokenizer_of(meta), TEXT, "bos").ids
    if len(ids) < 65:
        raise ValueError(f"the benchmark text has {len(ids) - 1} pieces; it needs 64")
    ids = ids[:65]                                                  # [BOS] + 64 pieces
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        logit_lens.lens(model, ids)                                 # warm-up
        ms = cpu_ms(lambda: logit_lens.lens(model, ids), 5 if quick else 21)
    finally:
        torch.set_num_threads(threads)
    return {"lens_ms_n64": round(ms, 1)}


if __name__ == "__main__":
    print(run())
