"""zh_gpt: a GPT-style causal decoder on the modern-Chinese corpus (docs/data-card-zh.md) in the Chinese byte-level
BPE ids (assets/bpe_zh_8k.json: common characters whole, rare ones as bytes), so it reads any text without [UNK].

The same engine and sizes as general_gpt: pre-LN, GELU, learned positions, 4 layers × 4 heads, d_model 128,
context 128, input and output embedding tied, weights stored as float16. Training documents are packed as
[BOS] doc [EOS] ... into 129-id windows; a share of the windows repeat one span of themselves
(model/training/real_text_batches.py), so a head learns to copy what it read. Loss: next-token cross-entropy.

One stage (RECIPE["stages"]) of 90 CPU minutes on the whole train split, run by `python -m model.train zh_gpt`
on one thread (ATTENTION_LAB_BUDGET_MIN overrides the budget), longer on the clock on a shared machine,
checkpointed every 5 minutes under ~/.cache/attention-lab/ ($ATTENTION_LAB_CACHE).
`ATTENTION_LAB_RESUME=1 python -m model.train zh_gpt` continues from the checkpoint (model/training/resumable.py);
`export()` writes the assets from the latest checkpoint while a run goes on.
Held out: a fixed sample of the held-out documents, each scored alone as [BOS] doc [EOS] (cut to the context),
against the Witten-Bell bigram and interpolated Kneser–Ney 3- and 4-gram models counted on the same training
ids (model/analysis/lm_baselines.py).
"""
from pathlib import Path

import numpy as np

from model import checkpoints
from model.analysis import decoder_behaviour, lm_baselines
from model.data import bpe, real_text, text_input, zh_text, zh_tokenizer
from model.data.bigram import Bigram
from model.data.zh_text_sources import han_count
from model.training import real_text_batches as rtb
from model.training import resumable
from model.training.recipes import _real_text_lm as lm
from model.training.recipes.general_gpt import head_measures, loss_fn, model_perplexity

NAME = "zh_gpt"
RECIPE = dict(d_model=128, n_heads=4, n_layers=4, d_ff=512, context=128, batch=16, lr=2e-3, weight_decay=0.01,
              betas=(0.9, 0.98), budget_min=90, checkpoint_min=5, repeat_share=0.15, tied_embeddings=True,
              max_train_docs=None, eval_every=4, score_docs=48, induction_span=32, induction_seqs=8,
              objective="causal LM, every position", corpus="model.data.zh_text (train split)",
              stages=[dict(sources=None, budget_min=90, repeat_share=0.15, lr=2e-3)])


def train(seed: int = 0, folder: Path | None = None, **overrides) -> dict:
    """Train (or, with ATTENTION_LAB_RESUME=1, continue) for one run and write assets/zh_gpt.*.
    overrides change RECIPE entries (tests use a tiny model); folder holds the checkpoint."""
    r = {**RECIPE, **overrides, "seed": seed}
    return finish(*lm.run(NAME, "decoder", r, make_batches, loss_fn, folder, load_tokenizer=zh_tokenizer.load))


def make_batches(tok, state: dict, stage: dict):
    """next_batch(step) -> (B, context + 1) ids: windows of the Chinese training documents, seeded from the run's
    steps so a resumed run sees new ones."""
    seed = stage["seed"]
    ids = rtb.stream(train_ids(tok, stage), "decoder", seed)
    windows = rtb.Windows(ids, stage["context"], "decoder", stage["repeat_share"], seed=seed + state["steps"])
    return lambda step: windows.batch(stage["batch"])


def finish(model, state: dict) -> dict:
    """Measure the model and write assets/zh_gpt.* with its recipe, run state and the Chinese tokenizer."""
    return resumable.save_run(NAME, model, state, "bos", measure, tokenizer=zh_tokenizer.load())


def export(folder: Path | None = None) -> dict:
    """Write the assets from the latest checkpoint (of a run still going or stopped)."""
    return finish(*lm.latest(NAME, "decoder", folder, load_tokenizer=zh_tokenizer.load))


def heldout_docs(r: dict) -> list[real_text.Document]:
    """The held-out documents of the fixed evaluation sample (every r["eval_every"]-th)."""
    return zh_text.corpus().heldout[::r["eval_every"]]


def text_measures(tok, r: dict, rule: str) -> tuple[list[list[int]], dict]:
    """The fixed held-out sample in ids (with the model's specials, cut to the context) and the tokenizer's
    measures on the held-out documents: [UNK] rate, tokens per Chinese character."""
    held = rtb.encode_split(tok, "heldout", docs_from=zh_text.corpus())
    seqs = rtb.heldout_sample(held, r["eval_every"], r["context"], rule)
    n_ids = sum(len(s) for s in seqs)
    han = sum(han_count(d.text) for d in zh_text.corpus().heldout)
    return seqs, {"unk_rate_heldout_real": sum(s.count(bpe.UNK) for s in seqs) / n_ids,
                  "tokens_per_han_char_heldout_real": round(len(held.ids) / han, 4),
                  "heldout_documents": len(seqs), "heldout_tokens": n_ids}


def train_ids(tok, r: dict) -> rtb.Encoded:
    """The training documents of recipe (or stage) r in ids: the first r["max_train_docs"] of its sources."""
    return rtb.encode_split(tok, "train", r["max_train_docs"], lm.sources(r), docs_from=zh_text.corpus())


def measure(model, meta: dict) -> dict:
    r = meta["recipe"]
    tok = text_input.tokenizer_of(meta)
    seqs, out = text_measures(tok, r, "bos")
    train = train_ids(tok, r)
    bigram = Bigram.fit([np.concatenate([[bpe.BOS], train.doc(i), [bpe.EOS]]) for i in range(len(train))], len(tok))
    ppl, base = model_perplexity(model, seqs), bigram.perplexity(seqs)
    out.update({"perplexity_heldout_real": round(ppl, 3), "bigram_perplexity_heldout_real": round(base, 3),
                "perplexity_ratio_vs_bigram": round(ppl / base, 4)})
    docs = heldout_docs(r)
    out.update(lm_baselines.perplexity_keys(train.ids, train.offsets, len(tok), seqs, [d.source for d in docs], ppl,
                                            lambda picked: model_perplexity(model, picked)))
    on_random = {"induction_score_best": "induction_score_best_random", "induction_head": "induction_head_random"}
    out.update({on_random.get(k, k): v for k, v in head_measures(model, seqs, r, prefix=[bpe.BOS]).items()})
    passages = decoder_behaviour.copy_passages(seqs, [True] * len(seqs), r["context"])
    out.update(decoder_behaviour.copy_measures(model, passages))          # induction_score_best: on real text
    return out


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    return measure(model, meta)

