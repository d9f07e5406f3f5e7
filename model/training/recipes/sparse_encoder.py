"""sparse_encoder: a BERT-style masked-LM encoder whose every layer attends through a sliding window
(8 tokens each side) plus one global token ([CLS] at position 0), trained with the blocked kernel of
`model.engine.sparse` (forward and backward) on course-world texts packed into sequences of up to
512 tokens, so it also reads long inputs. 4 layers, 4 heads, d_model 64, pre-LN, sinusoidal positions.

Evaluation: masked-LM accuracy on held-out texts (another generator seed) packed into 512-token
sequences, under its own pattern, against the same weights with full attention and a frequency baseline.
"""
import time

import numpy as np
import torch
import torch.nn.functional as F

from model import checkpoints
from model.architectures.sparse_encoder import SparseTransformer
from model.data import course_world as corpus
from model.data.word_tokenizer import CLS, SEP, SPECIALS, WordTokenizer
from model.engine.config import ModelConfig
from model.training.loop import fit, seed_everything
from model.training.objectives import bert_mask

NAME = "sparse_encoder"
PATTERN = dict(width=8, n_global=1, dilation=1)
RECIPE = dict(texts=60_000, max_steps=2000, lr=3e-3, tokens_per_step=1024, lengths=(128, 256, 512), mask_rate=0.2,
              time_budget_s=450, threads=1)
EVAL = dict(texts=1_500, seed=12_345, length=512, sequences=24, mask_rate=0.15)


def config(vocab_size: int) -> ModelConfig:
    return ModelConfig(vocab_size=vocab_size, d_model=64, n_heads=4, n_layers=4, d_ff=256, max_len=512,
                       pos_encoding="sinusoidal", norm="pre", activation="gelu", embed_norm=True)


def pack(texts: list[str], tok: WordTokenizer, length: int, rng: np.random.Generator) -> np.ndarray:
    """One sequence: [CLS] text [SEP] text [SEP] … cut at `length` tokens, texts drawn at random. (length,)"""
    ids = [CLS]
    while len(ids) < length:
        ids += tok.encode(texts[rng.integers(len(texts))]).ids + [SEP]
    return np.array(ids[:length])


def mask_tokens(ids: np.ndarray, rate: float, rng: np.random.Generator, vocab: int, replace: bool = True):
    """`bert_mask` of the ordinary words of ids (B, T): (inputs, targets with -100 where no loss)."""
    ids = torch.from_numpy(ids)
    return bert_mask(ids, ids >= len(SPECIALS), rate, rng, vocab, replace)


def mlm_loss(model, batch):
    inputs, targets = batch
    logits = model(inputs)                                                  # (B, T, V), the kernel path
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=-100)
    return loss, int(inputs.numel())


def train(seed: int = 0):
    seed_everything(seed)
    torch.set_num_threads(RECIPE["threads"])
    tok = corpus.tokenizer()
    texts = corpus.lm_texts(RECIPE["texts"], seed=seed)
    model = SparseTransformer(config(len(tok)), **PATTERN)
    rng = np.random.default_rng(seed)
    lengths = RECIPE["lengths"]

    def next_batch(step):
        length = lengths[step % len(lengths)]
        ids = np.stack([pack(texts, tok, length, rng) for _ in range(RECIPE["tokens_per_step"] // length)])
        return mask_tokens(ids, RECIPE["mask_rate"], rng, len(tok))

    t0 = time.perf_counter()
    history = fit(model, next_batch, mlm_loss, RECIPE["max_steps"], lr=RECIPE["lr"], label=NAME,
                  time_budget_s=RECIPE["time_budget_s"])
    metrics = measure(model, tok)
    metrics.update(train_seconds=round(time.perf_counter() - t0, 1), steps_done=len(history),
                   final_loss=round(float(np.mean(history[-20:])), 4))
    checkpoints.save(NAME, model, {"arch": "model.architectures.sparse_encoder:SparseTransformer",
                                   "config": model.config_dict(),
                                   "tokenizer": tok.to_dict(), "modality": "text",
                                   "recipe": {**RECIPE, "pattern": PATTERN, "seed": seed}, "metrics": metrics})
    print(metrics)


def eval_batch(tok: WordTokenizer):
    """Held-out (inputs, targets): EVAL["sequences"] packed sequences of EVAL["length"], 15 % [MASK]."""
    rng = np.random.default_rng(EVAL["seed"])
    texts = corpus.lm_texts(EVAL["texts"], seed=EVAL["seed"])
    ids = np.stack([pack(texts, tok, EVAL["length"], rng) for _ in range(EVAL["sequences"])])
    return mask_tokens(ids, EVAL["mask_rate"], rng, len(tok), replace=False)


@torch.inference_mode()
def accuracy(model, inputs, targets, mask=None) -> float:
    """Share of masked positions whose argmax prediction is the hidden word (mask=None: own pattern)."""
    logits = model.lm_head(model.encode(inputs, mask=mask).x)              # (B, T, V)
    hit = (logits.argmax(-1) == targets)[targets >= 0]
    return float(hit.float().mean())


def measure(model, tok: WordTokenizer) -> dict:
    """mlm_accuracy under the pattern (kernel path), the same weights with full attention and with the dense
    pattern mask (must equal the kernel), and the most-frequent-word baseline; all on held-out 512-token inputs."""
    inputs, targets = eval_batch(tok)
    T = inputs.shape[1]
    full = torch.ones(T, T, dtype=torch.bool)
    counts = np.bincount(targets[targets >= 0].numpy(), minlength=len(tok))
    return {"mlm_accuracy": round(accuracy(model, inputs, targets), 4),
            "mlm_accuracy_dense_mask": round(accuracy(model, inputs, targets, model.pattern_mask(T)), 4),
            "mlm_accuracy_full_attention": round(accuracy(model, inputs, targets, full), 4),
            "mlm_baseline_most_frequent": round(float(counts.max() / counts.sum()), 4),
            "eval_tokens_per_sequence": T, "eval_masked_tokens": int((targets >= 0).sum()),
            "pattern_width": PATTERN["width"], "pattern_global_tokens": PATTERN["n_global"]}


def evaluate() -> dict:
    model, meta = checkpoints.load(NAME)
    return measure(model, WordTokenizer.from_dict(meta["tokenizer"]))
