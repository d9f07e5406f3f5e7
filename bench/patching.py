"""Activation patching figures: the full layer × position map of a 24-piece minimal pair ("…too big" / "…too small")
on the coreference models (model.analysis.patching.patch_map: every residual state of A entering each layer up to
the coreference head's, at every aligned position, copied into B, one state per batch row), on one thread, wall
clock. The logit lens's figures (bench/_lens.py: `lens_ms_n64`) are measured here too, so that `--only patching` prints
every figure of activation patching and the lens."""
import statistics
import time

import torch
from threadpoolctl import threadpool_limits

from bench import _lens
from model import checkpoints
from model.data import text_input

N = 24
MODELS = {"coref_encoder": "patch_map_s_n24", "minilm": "patch_map_s_n24_minilm"}
WORDS = ["shiny", "golden", "old", "brown", "leather", "heavy", "yesterday", "really"]


def pair_of(tokenizer, n: int = N) -> tuple[str, str]:
    """A trophy/suitcase pair whose two texts read as exactly n pieces each ([CLS] and [SEP] included)."""
    def text(extra: list[str], end: str) -> str:
        adj = " ".join(w for w in extra if w not in ("yesterday", "really"))
        when = " yesterday" if "yesterday" in extra else ""
        how = "really " if "really" in extra else ""
        return f"The {adj} trophy didn't fit into the suitcase{when} because it was {how}too {end}.".replace("  ", " ")

    def size(t: str) -> int:
        return len(text_input.encode(tokenizer, t, "cls_sep").ids)

    for k in range(len(WORDS) + 1):
        for start in range(len(WORDS) - k + 1):
            a, b = text(WORDS[start:start + k], "big"), text(WORDS[start:start + k], "small")
            if size(a) == size(b) == n:
                return a, b
    raise RuntimeError(f"no trophy/suitcase pair of {n} pieces for this tokenizer")


def map_seconds(name: str, repeats: int) -> float:
    from model.analysis.patching import patch_map
    model, meta = checkpoints.load(name)
    tok = text_input.tokenizer_of(meta)
    a, b = pair_of(tok)
    head, rule = tuple(meta["coref_head"]), meta.get("coref_candidates", "all")
    patch_map(model, tok, a, b, head, rule)                                          # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        patch_map(model, tok, a, b, head, rule)
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times), 3)


def run(quick: bool = False) -> dict:
    out = {}
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        with threadpool_limits(1):
            for name, key in MODELS.items():
                if name in checkpoints.shipped():
                    out[key] = map_seconds(name, 2 if quick else 5)
    finally:
        torch.set_num_threads(threads)
    out.update(_lens.run(quick))
    return out


if __name__ == "__main__":
    print(run())
