"""zh_encoder: a BERT-style masked-LM encoder on the modern-Chinese corpus (docs/data-card-zh.md) in the Chinese
byte-level BPE ids (assets/bpe_zh_8k.json: common characters whole, rare ones as bytes).

The same engine and sizes as general_encoder: pre-LN, GELU, learned positions, 4 layers × 4 heads, d_model 128,
context 128, input and output embedding tied, weights stored as float16. Training documents are packed as
doc [SEP] doc ... into windows [CLS] + 126 ids + [SEP]; a tenth of the windows repeat one span of themselves
(model/training/real_text_batches.py). Masked LM (Devlin et al. 2019): 30% of the non-special tokens are chosen
(80% [MASK], 10% random, 10% kept; Wettig et al. 2023 find more than 15% no worse for models this size); the
output layer runs only at the chosen positions.

One stage (RECIPE["stages"]) of 90 CPU minutes on the whole train split, run by `python -m model.train
zh_encoder` on one thread (ATTENTION_LAB_BUDGET_MIN overrides the budget), checkpointed every 5 minutes under
~/.cache/attention-lab/ ($ATTENTION_LAB_CACHE); `ATTENTION_LAB_RESUME=1` continues from the checkpoint.
Held out: the fixed sample of zh_gpt's measures, each text run alone as [CLS] doc [SEP] with 15% of its tokens
behind [MASK] (fixed seed), against the most frequent training id and the two-sided Kneser–Ney trigram fill at
the same positions (model/analysis/lm_baselines.py).
"""
from pathlib import Path

import numpy as np
import torch

from model import checkpoints
from model.data import text_input, zh_tokenizer
from model.training import real_text_batches as rtb
from model.training import resumable
from model.training.recipes import _real_text_lm as lm
from model.training.recipes import zh_gpt
from model.training.recipes.general_encoder import loss_fn, mlm_measures

NAME = "zh_encoder"
RECIPE = dict(d_model=128, n_heads=4, n_layers=4, d_ff=512, context=128, batch=16, lr=2e-3, weight_decay=0.01,
              betas=(0.9, 0.98), budget_min=90, checkpoint_min=5, repeat_share=0.1, tied_embeddings=True,
              mask_prob=0.3, eval_mask_prob=0.15, max_train_docs=None, eval_every=4, score_docs=48,
              induction_span=32, induction_seqs=8,
              objective="masked LM, output layer at chosen positions only",
              corpus="model.data.zh_text (train split)",
              stages=[dict(sources=None, budget_min=90, mask_prob=0.3, lr=2e-3)])


def train(seed: int = 0, folder: Path | None = None, **overrides) -> dict:
    """Train (or, with ATTENTION_LAB_RESUME=1, continue) for one run and write assets/zh_encoder.*.
    overrides change RECIPE entries (tests use a tiny model); folder holds the checkpoint."""
    r = {**RECIPE, **overrides, "seed": seed}
    return finish(*lm.run(NAME, "encoder", r, make_batches, loss_fn, folder, load_tokenizer=zh_tokenizer.load))


def make_batches(tok, state: dict, stage: dict):
    """next_batch(step) -> (inputs, labels) (B, context): windows of the Chinese training documents with
    stage["mask_prob"] of their tokens chosen, seeded from the run's steps so a resumed run sees new ones."""
    seed = stage["seed"]
    windows = rtb.Windows(rtb.stream(zh_gpt.train_ids(tok, stage), "encoder", seed), stage["context"], "encoder",
                          stage["repeat_share"], seed=seed + state["steps"])
    gen = torch.Generator().manual_seed(seed + state["steps"])
    return lambda step: rtb.mask_for_mlm(windows.batch(stage["batch"]), len(tok), gen, stage["mask_prob"])


def finish(model, state: dict) -> dict:
    """Measure the model and write assets/zh_encoder.* with its recipe, run state and the Chinese tokenizer."""
    return resumable.save_run(NAME, model, state, "cls_sep", measure, tokenizer=zh_tokenizer.load())


def export(folder: Path | None = None) -> dict:
    """Write the assets from the latest checkpoint (of a run still going or stopped)."""
    return finish(*lm.latest(NAME, "encoder", folder, load_tokenizer=zh_tokenizer.load))


def measure(model, meta: dict) -> dict:
    r = meta["recipe"]
    tok = text_input.tokenizer_of(meta)
    seqs, out = zh_gpt.text_measures(tok, r, "cls_sep")
    train = zh_gpt.train_ids(tok, r)
    most_frequent = int(np.argmax(np.bincount(train.ids, minlength=len(tok))))
    out.update(mlm_measures(model, tok, seqs, train, most_frequent, r))
    return out


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    return measure(model, meta)
