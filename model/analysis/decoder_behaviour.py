"""What a causal decoder does with text it has read, on held-out real text and everyday prompts:

- copying: held-out English passages p of 20–60 ids, each read as [BOS] p p. Greedy next-id accuracy over the
  second copy minus over the first (the ids p_1 .. p_{L−1} of each copy, whose previous id lies in the same copy).
  A model with working induction heads gets close to 1 on the second copy (Olsson et al. 2022).
- an induction head on real repeated text: the induction score of each head (model/analysis/head_scores.py) on
  those same sequences, averaged over their queries;
- greedy loops: the share of everyday prompts (model/data/everyday_prompts.json) whose greedy continuation of
  30 ids (stopping at [EOS]) repeats some 4-gram three times or more.
"""
import json
from collections import Counter
from pathlib import Path

import numpy as np
import torch

from model.analysis.head_scores import attention_weights, best, induction_pattern_scores
from model.data import text_input
from model.data.bpe import BOS, EOS
from model.tasks import generation

PROMPTS = Path(__file__).resolve().parents[1] / "data" / "everyday_prompts.json"
COPY_LENGTHS = (20, 60)       # shortest and longest passage, in ids
COPY_PASSAGES = 64
LOOP_NEW, LOOP_N, LOOP_TIMES = 30, 4, 3


def everyday_prompts() -> list[str]:
    return json.loads(PROMPTS.read_text(encoding="utf-8"))


def copy_passages(seqs: list[list[int]], english: list[bool], limit: int) -> list[list[int]]:
    """From held-out samples [BOS] doc [EOS], the first COPY_PASSAGES English docs of 20–60 ids whose
    [BOS] doc doc fits `limit` positions."""
    out = []
    for s, en in zip(seqs, english):
        doc = s[1:-1] if s[-1] == EOS else []
        if en and COPY_LENGTHS[0] <= len(doc) <= COPY_LENGTHS[1] and 1 + 2 * len(doc) <= limit:
            out.append(doc)
        if len(out) == COPY_PASSAGES:
            break
    return out


@torch.inference_mode()
def copy_measures(model, passages: list[list[int]]) -> dict:
    """copy_acc_first, copy_acc_second, copy_gain_heldout and the best induction head on [BOS] p p (None when
    there is no passage)."""
    if not passages:
        return {"copy_acc_first": None, "copy_acc_second": None, "copy_gain_heldout": None,
                "induction_score_best": None, "induction_head": None, "copy_passages": 0}
    hits, n, induction = np.zeros(2), 0, 0.0
    for p in passages:
        L = len(p)
        ids = torch.tensor([[BOS] + p + p])                                  # (1, 1 + 2L)
        predicted = model(ids)[0].argmax(-1)                                 # row t predicts id t + 1
        hits += [int((predicted[1:L] == ids[0, 2:L + 1]).sum()), int((predicted[L + 1:2 * L] == ids[0, L + 2:]).sum())]
        n += L - 1
        induction = induction + induction_pattern_scores(attention_weights(model, ids), 1, L) * L
    first, second = hits / n
    score, head = best(induction / sum(len(p) for p in passages))
    return {"copy_acc_first": round(float(first), 4), "copy_acc_second": round(float(second), 4),
            "copy_gain_heldout": round(float(second - first), 4), "induction_score_best": round(score, 4),
            "induction_head": list(head), "copy_passages": len(passages)}


def repeats_ngram(ids, n: int = LOOP_N, times: int = LOOP_TIMES) -> bool:
    """Whether some n-gram occurs `times` times or more in ids (occurrences may overlap)."""
    grams = Counter(tuple(ids[i:i + n]) for i in range(len(ids) - n + 1))
    return bool(grams) and max(grams.values()) >= times


def greedy_continuations(model, tok, prompts: list[str], new: int = LOOP_NEW) -> list[list[int]]:
    """The greedy continuation (ids, [EOS] included when reached) of each prompt read as [BOS] prompt, at most
    `new` ids or what the model's positions leave."""
    out = []
    for prompt in prompts:
        ids = text_input.encode(tok, prompt, "bos").ids
        room = min(new, model.config.max_len - len(ids))
        out.append(generation.generate(model, ids, room, "greedy", eos_id=EOS).new_ids if room >= 1 else [])
    return out


def greedy_loop_rate(model, tok, prompts: list[str] | None = None) -> float:
    """Share of the prompts (default: the everyday prompts) whose greedy continuation repeats a 4-gram 3 times."""
    prompts = everyday_prompts() if prompts is None else prompts
    return round(sum(repeats_ngram(c) for c in greedy_continuations(model, tok, prompts)) / len(prompts), 4)
