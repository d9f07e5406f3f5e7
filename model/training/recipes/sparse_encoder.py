"""sparse_encoder: a BERT-style masked-LM encoder whose every layer attends through a sliding window
(8 tokens each side) plus one global token of the textbook's extra kind (12.9: [CLS] at position 0, added in
front of every window and standing for no word), trained with the blocked kernel of
`model.engine.sparse` (forward and backward) on the real-text corpus (docs/data-card.md) in byte-level BPE
ids (assets/bpe_8k.json), documents packed as [CLS] doc [SEP] doc ... into windows of 128, 256 and 512
ids, so it reads any text and long inputs. 4 layers, 4 heads, d_model 64, pre-LN, sinusoidal positions;
the output layer runs only at the masked positions.

Time: one run is 12 minutes of CPU time (one thread; ATTENTION_LAB_BUDGET_MIN overrides), checkpointed and
resumable like the general models (model/training/resumable.py).
Evaluation: masked-LM accuracy on held-out documents packed into 512-id windows, under its own pattern,
against the same weights with full attention and a most-frequent-token baseline.
"""
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from model import checkpoints
from model.analysis import lm_baselines
from model.architectures.sparse_encoder import SparseTransformer
from model.data import bpe, real_text
from model.engine.config import ModelConfig
from model.training import real_text_batches as rtb
from model.training import resumable
from model.training.loop import seed_everything

NAME = "sparse_encoder"
PATTERN = dict(width=8, n_global=1, dilation=1)
RECIPE = dict(budget_min=12, checkpoint_min=5, lr=3e-3, weight_decay=0.01, betas=(0.9, 0.98), tokens_per_step=2048,
              lengths=(128, 256, 512), mask_rate=0.2,
              objective="masked LM, output layer at chosen positions only",
              corpus="model.data.real_text (train split)")
EVAL = dict(seed=12_345, length=512, sequences=24, mask_rate=0.15)


def config(vocab_size: int) -> ModelConfig:
    return ModelConfig(vocab_size=vocab_size, d_model=64, n_heads=4, n_layers=4, d_ff=256, max_len=512,
                       pos_encoding="sinusoidal", norm="pre", activation="gelu", embed_norm=True)


def mlm_loss(model, batch):
    inputs, targets = batch
    hidden = model.encode(inputs).x                                         # (B, T, C), the kernel path
    chosen = targets != -100
    return F.cross_entropy(model.lm_head(hidden[chosen]), targets[chosen]), int(inputs.numel())


def train(seed: int = 0, folder: Path | None = None, **overrides) -> dict:
    """Train (or, with ATTENTION_LAB_RESUME=1, continue) for one run and write assets/sparse_encoder.*."""
    r = {**RECIPE, **overrides, "seed": seed, "pattern": PATTERN}
    seed_everything(seed)
    tok = bpe.load()
    ids = rtb.stream(rtb.encode_split(tok, "train"), "encoder", seed)
    model = SparseTransformer(config(len(tok)), **PATTERN)

    def make_batches(state):
        windows = {n: rtb.Windows(ids, n, "encoder", 0.0, seed=seed + state["steps"] + n) for n in r["lengths"]}
        gen = torch.Generator().manual_seed(seed + state["steps"])

        def next_batch(step):
            n = r["lengths"][step % len(r["lengths"])]
            return rtb.mask_for_mlm(windows[n].batch(r["tokens_per_step"] // n), len(tok), gen, r["mask_rate"])
        return next_batch

    state, _ = resumable.run(NAME, model, make_batches, mlm_loss, r, Path(folder or real_text.cache_dir()))
    return finish(model, state)


def finish(model: SparseTransformer, state: dict) -> dict:
    tok = bpe.load()
    r = state["recipe"]
    metrics = measure(model.eval(), tok)
    checkpoints.save(NAME, model, {"arch": "model.architectures.sparse_encoder:SparseTransformer",
                                   "config": model.config_dict(), "tokenizer": tok.to_dict(),
                                   "text_input": "cls_sep", "modality": "text",
                                   "recipe": {**r, "steps_done": state["steps"], "tokens_seen": state["tokens"],
                                              "train_cpu_seconds": state["train_seconds"],
                                              "train_wall_seconds": state.get("wall_seconds"),
                                              "runs": state["runs"], "final_loss": state.get("last_loss")},
                                   "metrics": metrics})
    print(metrics, flush=True)
    return metrics


def export(folder: Path | None = None) -> dict:
    """Write the assets from the latest checkpoint (of a run still going or stopped)."""
    return finish(*resumable.latest(NAME, lambda r: SparseTransformer(config(len(bpe.load())), **PATTERN), folder))


def eval_batch(tok: bpe.BPETokenizer):
    """Held-out (inputs, targets): EVAL["sequences"] windows of EVAL["length"] ids, 15% behind [MASK]."""
    ids = rtb.stream(rtb.encode_split(tok, "heldout"), "encoder", EVAL["seed"])
    windows = rtb.Windows(ids, EVAL["length"], "encoder", 0.0, seed=EVAL["seed"])
    gen = torch.Generator().manual_seed(EVAL["seed"])
    return rtb.mask_for_mlm(windows.batch(EVAL["sequences"]), len(tok), gen, EVAL["mask_rate"], keep_random=False)


@torch.inference_mode()
def accuracy(model, inputs, targets, mask=None) -> float:
    """Share of masked positions whose argmax prediction is the hidden word (mask=None: own pattern)."""
    chosen = targets >= 0
    logits = model.lm_head(model.encode(inputs, mask=mask).x[chosen])      # (n, V)
    hit = logits.argmax(-1) == targets[chosen]
    return float(hit.float().mean())


def measure(model, tok: bpe.BPETokenizer) -> dict:
    """mlm_accuracy under the pattern (kernel path), the same weights with full attention and with the dense
    pattern mask (must equal the kernel), the most-frequent-word baseline and the two-sided Kneser–Ney trigram
    fill; all on held-out 512-token inputs."""
    inputs, targets = eval_batch(tok)
    T = inputs.shape[1]
    full = torch.ones(T, T, dtype=torch.bool)
    counts = np.bincount(targets[targets >= 0].numpy(), minlength=len(tok))
    return {"mlm_accuracy": round(accuracy(model, inputs, targets), 4),
            "mlm_accuracy_dense_mask": round(accuracy(model, inputs, targets, model.pattern_mask(T)), 4),
            "mlm_accuracy_full_attention": round(accuracy(model, inputs, targets, full), 4),
            "mlm_baseline_most_frequent": round(float(counts.max() / counts.sum()), 4),
            "mlm_baseline_kn3_fill": round(kn3_fill_accuracy(tok, inputs, targets), 4),
            "eval_tokens_per_sequence": T, "eval_masked_tokens": int((targets >= 0).sum()),
            "pattern_width": PATTERN["width"], "pattern_global_tokens": PATTERN["n_global"],
            **head_measures(model, tok)}


def kn3_fill_accuracy(tok: bpe.BPETokenizer, inputs: torch.Tensor, targets: torch.Tensor) -> float:
    """The two-sided Kneser–Ney trigram fill (model/analysis/lm_baselines.py), counted on the training documents,
    at the same masked positions."""
    train = rtb.encode_split(tok, "train")
    return lm_baselines.fill_accuracy(lm_baselines.fitted(train.ids, train.offsets, 3, len(tok)), [(inputs, targets)])


def head_measures(model, tok: bpe.BPETokenizer) -> dict:
    """Best previous-token and induction heads (model.analysis.head_scores), as for the general models."""
    from model.training.recipes import general_encoder, general_gpt
    seqs, _ = general_gpt.text_measures(tok, general_encoder.RECIPE, "cls_sep")
    return general_gpt.head_measures(model, seqs, general_encoder.RECIPE, prefix=[bpe.CLS], suffix=[bpe.SEP])


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    return measure(model, bpe.load())
