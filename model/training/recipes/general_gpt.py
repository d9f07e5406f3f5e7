"""general_gpt: a GPT-style causal decoder on the real-text corpus (docs/data-card.md) in byte-level BPE ids
(assets/bpe_8k.json), so it reads any text without [UNK].

Pre-LN, GELU, learned positions, 4 layers × 4 heads, d_model 128, context 128, input and output embedding
tied (Press & Wolf 2017): sized for a shared CPU core, where the 8k-way output layer costs as much as the
four layers. Weights are stored as float16 (loaded as float32). Training documents are packed as
[BOS] doc [EOS] ... into 129-id windows; a share of the windows repeat one span of themselves
(model/training/real_text_batches.py). Loss: next-token cross-entropy at every position.

Three stages (RECIPE["stages"]), run one after the other by `python -m model.train general_gpt`:
  1. 75 CPU minutes on WordNet and the fortunes (the sources the BPE was learned from), a quarter of the
     windows with a repeated span, learning rate 2e-3;
  2. 45 CPU minutes on the whole corpus (adding the World English Bible, the Jargon File and the Debian
     handbook: longer documents), half the windows with a repeated span, so a head learns to copy what it read,
     learning rate 1e-3 (a warm restart);
  3. 20 CPU minutes against greedy loops, learning rate 2e-4: every other step continues the openings of
     training documents greedily and pushes down the continued ids that repeat a 4-gram (sequence-level
     unlikelihood, model/training/unlikelihood.py, its weight 0.05 against the next-token loss of the steps
     between).
Each stage is one run of one thread (ATTENTION_LAB_BUDGET_MIN overrides a stage's budget), longer on the clock
on a shared machine, checkpointed every 5 minutes under ~/.cache/attention-lab/ ($ATTENTION_LAB_CACHE).
`ATTENTION_LAB_RESUME=1 python -m model.train general_gpt` continues from the checkpoint, in the stage it was in
(model/training/resumable.py); `export()` writes the assets from the latest checkpoint while a run goes on.
Held out: a fixed sample of the held-out documents, each scored alone as [BOS] doc [EOS] (cut to the
context), against the Witten-Bell bigram counted on the same training documents.
"""
import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from model import checkpoints
from model.analysis import decoder_behaviour, lm_baselines
from model.analysis.head_scores import best, induction_scores, text_previous_token_scores
from model.data import bpe, text_input
from model.data.bigram import Bigram
from model.engine.config import ModelConfig
from model.training import real_text_batches as rtb
from model.training import resumable, unlikelihood
from model.training.objectives import causal_lm_batch
from model.training.recipes import _real_text_lm as lm
from model.training.recipes._real_text_lm import sources

NAME = "general_gpt"
RECIPE = dict(d_model=128, n_heads=4, n_layers=4, d_ff=512, context=128, batch=16, lr=2e-3, weight_decay=0.01,
              betas=(0.9, 0.98), budget_min=75, checkpoint_min=5, repeat_share=0.25, tied_embeddings=True,
              max_train_docs=None, eval_every=8, score_docs=48, induction_span=32, induction_seqs=8,
              objective="causal LM, every position", corpus="model.data.real_text (train split)",
              stages=[dict(sources=["wordnet", "fortunes", "fortunes-zh"], budget_min=75, repeat_share=0.25, lr=2e-3),
                      dict(sources=None, budget_min=45, repeat_share=0.5, lr=1e-3),
                      dict(sources=None, budget_min=20, repeat_share=0.5, lr=2e-4,
                           unlikelihood=dict(every=2, prefix=[6, 16], new=48, weight=0.05))])


def config(r: dict, vocab_size: int) -> ModelConfig:
    return lm.config(r, vocab_size, "decoder")


def loss_fn(model, batch):
    """Next-token cross-entropy on a window (B, T + 1), or the unlikelihood loss on a batch of Prefixes."""
    if isinstance(batch, unlikelihood.Prefixes):
        return unlikelihood.sequence_loss(model, batch)
    x, y = causal_lm_batch(batch)                                       # (B, T), (B, T)
    logits = model(x)                                                    # (B, T, V)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1)), y.numel()


def train(seed: int = 0, folder: Path | None = None, **overrides) -> dict:
    """Train (or, with ATTENTION_LAB_RESUME=1, continue) for one run and write assets/general_gpt.*.
    overrides change RECIPE entries (tests use a tiny model); folder holds the checkpoint."""
    return finish(*lm.run(NAME, "decoder", {**RECIPE, **overrides, "seed": seed}, make_batches, loss_fn, folder))


def make_batches(tok, state: dict, stage: dict):
    """next_batch(step) -> (B, context + 1) ids: windows of the stage's training documents, seeded from the run's
    steps so a resumed run sees new ones. A stage with `unlikelihood` gives, at every `every`-th step, Prefixes
    of documents instead (their length cycling through the `prefix` range); the speed probe (step −1) times a
    window, the costlier kind."""
    seed = stage["seed"]
    ids = rtb.stream(rtb.encode_split(tok, "train", stage["max_train_docs"], sources(stage)), "decoder", seed)
    windows = rtb.Windows(ids, stage["context"], "decoder", stage["repeat_share"], seed=seed + state["steps"])
    ul = stage.get("unlikelihood")
    if not ul:
        return lambda step: windows.batch(stage["batch"])
    rng = np.random.default_rng(seed + state["steps"])
    lengths = range(ul["prefix"][0], ul["prefix"][1] + 1)

    def next_batch(step: int):
        if step % ul["every"]:
            return windows.batch(stage["batch"])
        length = lengths[step // ul["every"] % len(lengths)]
        return unlikelihood.document_prefixes(ids, length, stage["batch"], ul["new"], rng, ul["weight"])
    return next_batch


def finish(model, state: dict) -> dict:
    """Measure the model and write assets/general_gpt.* with its recipe and run state."""
    return resumable.save_run(NAME, model, state, "bos", measure)


def export(folder: Path | None = None) -> dict:
    """Write the assets from the latest checkpoint (of a run still going or stopped)."""
    return finish(*lm.latest(NAME, "decoder", folder))


@torch.inference_mode()
def model_perplexity(model, seqs: list[list[int]]) -> float:
    """exp of the mean NLL of every token after the first of each sequence (each run alone, padded)."""
    nll, count = 0.0, 0
    for ids, lengths in rtb.length_batches(seqs):
        keep = torch.arange(ids.shape[1] - 1)[None, :] < (lengths[:, None] - 1)       # (B, T-1)
        logits = model(ids[:, :-1])[keep]                                           # (n, V)
        nll += float(F.cross_entropy(logits, ids[:, 1:][keep], reduction="sum"))
        count += int(keep.sum())
    return math.exp(nll / count)


def text_measures(tok, r: dict, rule: str) -> tuple[list[list[int]], dict]:
    """The fixed held-out sample in ids (with the model's specials) and the tokenizer's measures on it."""
    held = rtb.encode_split(tok, "heldout")
    seqs = rtb.heldout_sample(held, r["eval_every"], r["context"], rule)
    docs = rtb.corpus().heldout[::r["eval_every"]]
    words = [w for d in docs if d.lang == "en" for w in bpe.group_words(tok.encode(d.text))
             if w.text.isascii() and w.text.isalpha()]
    n_ids = sum(len(s) for s in seqs)
    return seqs, {"unk_rate_heldout_real": sum(s.count(bpe.UNK) for s in seqs) / n_ids,
                  "tokens_per_word_heldout_real": round(sum(len(w.pieces) for w in words) / len(words), 4),
                  "heldout_documents": len(seqs), "heldout_tokens": n_ids}


def head_measures(model, seqs: list[list[int]], r: dict, prefix, suffix=()) -> dict:
    """Best previous-token head on held-out texts (those of 16 ids or more) and best induction head."""
    longer = [s for s in seqs if len(s) >= 16][:r["score_docs"]]
    prev, prev_at = best(text_previous_token_scores(model, longer))
    ind, ind_at = best(induction_scores(model, span=r["induction_span"], n_seqs=r["induction_seqs"],
                                        prefix=prefix, suffix=suffix, low=len(bpe.SPECIALS)))
    return {"previous_token_score_best": round(prev, 4), "previous_token_head": list(prev_at),
            "induction_score_best": round(ind, 4), "induction_head": list(ind_at)}


def measure(model, meta: dict) -> dict:
    r = meta["recipe"]
    tok = text_input.tokenizer_of(meta)
    seqs, out = text_measures(tok, r, "bos")
    train = rtb.encode_split(tok, "train", r["max_train_docs"])
    bigram = Bigram.fit([np.concatenate([[bpe.BOS], train.doc(i), [bpe.EOS]]) for i in range(len(train))], len(tok))
    ppl, base = model_perplexity(model, seqs), bigram.perplexity(seqs)
    out.update({"perplexity_heldout_real": round(ppl, 3), "bigram_perplexity_heldout_real": round(base, 3),
                "perplexity_ratio_vs_bigram": round(ppl / base, 4)})
    docs = rtb.corpus().heldout[::r["eval_every"]]
    out.update(lm_baselines.perplexity_keys(train.ids, train.offsets, len(tok), seqs, [d.source for d in docs], ppl,
                                            lambda picked: model_perplexity(model, picked)))
    on_random = {"induction_score_best": "induction_score_best_random", "induction_head": "induction_head_random"}
    out.update({on_random.get(k, k): v for k, v in head_measures(model, seqs, r, prefix=[bpe.BOS]).items()})
    passages = decoder_behaviour.copy_passages(seqs, [d.lang == "en" for d in docs], r["context"])
    out.update(decoder_behaviour.copy_measures(model, passages))          # induction_score_best: on real text
    out["greedy_loop_rate_prompts"] = decoder_behaviour.greedy_loop_rate(model, tok)
    return out


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    return measure(model, meta)
