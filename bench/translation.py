"""Translation decoding figures on the shipped translator, one thread, CPU time: greedy with the key/value
cache vs recomputing the prefix every step (beam search of width 1, the same output), beam width 4, and
batched greedy over the held-out set. Interleaved so machine load hits every variant alike."""

import torch

from bench._timing import cpu_ms as _cpu_ms
from model.data import translation_corpus as corpus
from model.tasks import translation as translate
from model.training.recipes import translator


def run(quick: bool = False) -> dict:
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        model, src_tok, _ = translator.load()
        pairs = corpus.heldout_pairs()
        srcs = [src_tok.encode(p.en).ids for p in pairs[:8 if quick else 32]]
        repeats = 3 if quick else 7
        cached = recomputed = beam4 = 0.0
        for src in srcs:
            cached += _cpu_ms(lambda: translate.greedy(model, src, capture=False), repeats)
            recomputed += _cpu_ms(lambda: translate.beam_search(model, src, width=1), repeats)
            beam4 += _cpu_ms(lambda: translate.beam_search(model, src, width=4), repeats)
        n = len(srcs)
        batch = [src_tok.encode(p.en).ids for p in pairs]
        batched_ms = _cpu_ms(lambda: translate.greedy_batch(model, batch), 1 if quick else 3)
    finally:
        torch.set_num_threads(before)
    return {"translation_greedy_cached_ms": round(cached / n, 3),
            "translation_greedy_recompute_ms": round(recomputed / n, 3),
            "translation_cache_speedup": round(recomputed / cached, 3),
            "translation_beam4_ms": round(beam4 / n, 3),
            "translation_batched_greedy_sentences_per_s": round(len(batch) / (batched_ms / 1e3), 1)}
