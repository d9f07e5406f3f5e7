"""general_encoder: a BERT-style masked-LM encoder on the real-text corpus (docs/data-card.md) in byte-level BPE
ids (assets/bpe_8k.json), so it reads any text without [UNK].

Pre-LN, GELU, learned positions, 4 layers × 4 heads, d_model 128, context 128, input and output embedding
tied. Weights are stored as float16 (loaded as float32). Training documents are packed as doc [SEP] doc ...
into windows [CLS] + 126 ids + [SEP]; a quarter of the windows repeat one span of themselves
(model/training/real_text_batches.py). Masked LM (Devlin et al. 2019): 20% of the non-special tokens are
chosen (80% [MASK], 10% random, 10% kept); the output layer runs only at the chosen positions, which halves
the cost of a step with an 8k-way vocabulary.

Two stages (RECIPE["stages"]), run one after the other by `python -m model.train general_encoder`:
  1. 45 CPU minutes on WordNet and the fortunes (the sources the BPE was learned from), 20% masked;
  2. 40 CPU minutes on the whole corpus (adding the World English Bible, the Jargon File and the Debian
     handbook), 35% masked (more predicted tokens per step; Wettig et al. 2023 find 40% no worse than 15% for
     BERT-sized models), learning rate 1e-3 (a warm restart).
Each stage is one run of one thread (ATTENTION_LAB_BUDGET_MIN overrides a stage's budget), longer on the clock
on a shared machine, checkpointed every 5 minutes under ~/.cache/attention-lab/ ($ATTENTION_LAB_CACHE).
`ATTENTION_LAB_RESUME=1 python -m model.train general_encoder` continues from the checkpoint, in the stage it was
in (model/training/resumable.py); `export()` writes the assets from the latest checkpoint while a run goes on.
Held out: a fixed sample of the held-out documents, each run alone as [CLS] doc [SEP], with 15% of its tokens
behind [MASK] (fixed seed).
"""
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from model import checkpoints
from model.analysis import lm_baselines
from model.data import bpe, text_input
from model.training import real_text_batches as rtb
from model.training import resumable
from model.training.recipes import _real_text_lm as lm
from model.training.recipes.general_gpt import head_measures, text_measures

NAME = "general_encoder"
RECIPE = dict(d_model=128, n_heads=4, n_layers=4, d_ff=512, context=128, batch=16, lr=2e-3, weight_decay=0.01,
              betas=(0.9, 0.98), budget_min=45, checkpoint_min=5, repeat_share=0.25, tied_embeddings=True,
              mask_prob=0.2, eval_mask_prob=0.15, max_train_docs=None, eval_every=8, score_docs=48,
              induction_span=32, induction_seqs=8,
              objective="masked LM, output layer at chosen positions only",
              corpus="model.data.real_text (train split)",
              stages=[dict(sources=["wordnet", "fortunes", "fortunes-zh"], budget_min=45, mask_prob=0.2, lr=2e-3),
                      dict(sources=None, budget_min=40, mask_prob=0.35, lr=1e-3)])


def masked_logits(model, inputs: torch.Tensor, labels: torch.Tensor, pad_mask: torch.Tensor | None = None):
    """Logits (n, V) at the n positions whose label is not -100, and those labels (n,)."""
    hidden = model.encode(inputs, mask=pad_mask).x                      # (B, T, C)
    chosen = labels != -100
    return model.lm_head(hidden[chosen]), labels[chosen]


def train(seed: int = 0, folder: Path | None = None, **overrides) -> dict:
    """Train (or, with ATTENTION_LAB_RESUME=1, continue) for one run and write assets/general_encoder.*.
    overrides change RECIPE entries (tests use a tiny model); folder holds the checkpoint."""
    return finish(*lm.run(NAME, "encoder", {**RECIPE, **overrides, "seed": seed}, make_batches, loss_fn, folder))


def make_batches(tok, state: dict, stage: dict):
    """next_batch(step) -> (inputs, labels) (B, context): windows of the stage's training documents with
    stage["mask_prob"] of their tokens chosen, seeded from the run's steps so a resumed run sees new ones."""
    seed = stage["seed"]
    train_ids = rtb.encode_split(tok, "train", stage["max_train_docs"], lm.sources(stage))
    windows = rtb.Windows(rtb.stream(train_ids, "encoder", seed), stage["context"], "encoder",
                          stage["repeat_share"], seed=seed + state["steps"])
    gen = torch.Generator().manual_seed(seed + state["steps"])
    return lambda step: rtb.mask_for_mlm(windows.batch(stage["batch"]), len(tok), gen, stage["mask_prob"])


def loss_fn(model, batch):
    logits, targets = masked_logits(model, *batch)
    return F.cross_entropy(logits, targets), batch[0].numel()


def finish(model, state: dict) -> dict:
    """Measure the model and write assets/general_encoder.* with its recipe and run state."""
    return resumable.save_run(NAME, model, state, "cls_sep", measure)


def export(folder: Path | None = None) -> dict:
    """Write the assets from the latest checkpoint (of a run still going or stopped)."""
    return finish(*lm.latest(NAME, "encoder", folder))


@torch.inference_mode()
def mlm_accuracy(model, seqs: list[list[int]], prob: float, most_frequent: int, seed: int = 0) -> tuple[float, float]:
    """Accuracy of the masked-LM head at positions hidden behind [MASK] (each text alone, fixed seed), and
    that of always answering the most frequent training token at the same positions."""
    hits = base = count = 0
    for inputs, labels, lengths in masked_heldout(seqs, model.config.vocab_size, prob, seed):
        pad = (torch.arange(inputs.shape[1])[None, :] < lengths[:, None])[:, None, None, :]   # (B, 1, 1, T)
        logits, targets = masked_logits(model, inputs, labels, pad)
        hits += int((logits.argmax(-1) == targets).sum())
        base += int((targets == most_frequent).sum())
        count += len(targets)
    return hits / count, base / count


def masked_heldout(seqs: list[list[int]], vocab_size: int, prob: float, seed: int = 0) -> list[tuple]:
    """The texts in padded length batches with `prob` of their ordinary ids behind [MASK] (fixed seed): the same
    positions for the model and its baselines. -> [(inputs (B, T), labels (B, T), lengths (B,))]."""
    gen = torch.Generator().manual_seed(seed)
    return [(*rtb.mask_for_mlm(ids, vocab_size, gen, prob, keep_random=False), lengths)
            for ids, lengths in rtb.length_batches(seqs)]


def most_frequent_id(tok, max_docs: int | None = None) -> int:
    """The id most frequent in the training documents (the masked-LM baseline's one answer)."""
    return int(np.argmax(np.bincount(rtb.encode_split(tok, "train", max_docs).ids, minlength=len(tok))))


def measure(model, meta: dict) -> dict:
    r = meta["recipe"]
    tok = text_input.tokenizer_of(meta)
    seqs, out = text_measures(tok, r, "cls_sep")
    train = rtb.encode_split(tok, "train", r["max_train_docs"])
    out.update(mlm_measures(model, tok, seqs, train, most_frequent_id(tok, r["max_train_docs"]), r))
    return out


def mlm_measures(model, tok, seqs: list[list[int]], train: rtb.Encoded, most_frequent: int, r: dict) -> dict:
    """Masked-piece accuracy on the held-out texts `seqs` beside the most frequent piece and a Kneser–Ney 3-gram
    fill fitted on `train`, and the head measures."""
    acc, base = mlm_accuracy(model, seqs, r["eval_mask_prob"], most_frequent)
    out = {"mlm_acc_heldout_real": round(acc, 4), "mlm_baseline_most_frequent_real": round(base, 4),
           "most_frequent_token": tok.piece(most_frequent)}
    kn3 = lm_baselines.fitted(train.ids, train.offsets, 3, len(tok))
    masked = masked_heldout(seqs, len(tok), r["eval_mask_prob"])
    out["mlm_baseline_kn3_fill_real"] = round(lm_baselines.fill_accuracy(kn3, masked), 4)
    out.update(head_measures(model, seqs, r, prefix=[bpe.CLS], suffix=[bpe.SEP]))
    return out


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    return measure(model, meta)
