"""translator: an English→Chinese encoder-decoder (post-LN as in Vaswani et al. 2017), d_model 96,
3 encoder + 3 decoder layers, 4 heads, trained on pairs drawn fresh each step from
`model.data.translation_corpus` (never a held-out template or word combination). English is read word
by word, Chinese written one character at a time. Evaluated on the 520 held-out pairs.

`python -m model.train translator --threads 1` (stops after at most 7 minutes of CPU time).
"""
import functools
import random
import time

import torch
import torch.nn.functional as F

from model import checkpoints
from model.data import translation_corpus as corpus
from model.data.word_tokenizer import BOS, EOS, PAD, WordTokenizer
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.tasks import translation as translate
from model.training.loop import fit, seed_everything

NAME = "translator"
RECIPE = dict(steps=4000, batch=64, lr=1e-3, weight_decay=0.01, label_smoothing=0.0, time_budget_s=420)
ARCH = dict(kind="encoder_decoder", d_model=96, n_heads=4, n_layers=3, n_dec_layers=3, d_ff=192,
            max_len=64, norm="post", pos_encoding="sinusoidal", dropout=0.0)


def tokenizers() -> tuple[WordTokenizer, WordTokenizer]:
    """(English word tokenizer, Chinese character tokenizer) over everything the grammar can say."""
    return WordTokenizer.build(corpus.all_words_en()), WordTokenizer.build(corpus.all_text_zh())


def _pad(rows: list[list[int]]) -> torch.Tensor:
    T = max(map(len, rows))
    return torch.tensor([r + [PAD] * (T - len(r)) for r in rows])


def batches(src_tok, tgt_tok, batch: int, seed: int):
    """next_batch(step) -> (src (B, S), tgt_in (B, T), tgt_out (B, T)); tgt_in = [BOS] + y, tgt_out = y + [EOS]."""
    rng = random.Random(seed)

    def next_batch(step):
        pairs = [corpus.train_pair(rng) for _ in range(batch)]
        src = [src_tok.encode(p.en).ids for p in pairs]
        tgt = [tgt_tok.encode(p.zh).ids for p in pairs]
        return _pad(src), _pad([[BOS] + t for t in tgt]), _pad([t + [EOS] for t in tgt])
    return next_batch


def loss_fn(model, batch, label_smoothing: float = 0.0):
    src, tgt_in, tgt_out = batch
    keep = (src != PAD)[:, None, None, :]                      # (B, 1, 1, S): padding is never a key
    memory = model.encode(src, mask=keep).x
    logits = model.lm_head(model.decode(tgt_in, memory, memory_mask=keep).x)    # (B, T, V)
    loss = F.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=PAD,
                           label_smoothing=label_smoothing)
    return loss, int((tgt_out != PAD).sum())


def train(seed: int = 0):
    seed_everything(seed)
    src_tok, tgt_tok = tokenizers()
    model = Transformer(ModelConfig(vocab_size=len(src_tok), tgt_vocab_size=len(tgt_tok), **ARCH))
    r, t0 = RECIPE, time.process_time()
    history = fit(model, batches(src_tok, tgt_tok, r["batch"], seed),
                  functools.partial(loss_fn, label_smoothing=r["label_smoothing"]), r["steps"], lr=r["lr"],
                  weight_decay=r["weight_decay"], label=NAME, time_budget_s=r["time_budget_s"])
    minutes = (time.process_time() - t0) / 60
    metrics = measure(model, src_tok, tgt_tok)
    metrics.update(train_steps=len(history), train_cpu_minutes=round(minutes, 2), final_loss=round(history[-1], 4))
    checkpoints.save(NAME, model, {
        "arch": "model.engine.transformer:Transformer", "config": model.config.to_dict(), "modality": "translation",
        "text_input": "plain", "tokenizer": src_tok.to_dict(), "tgt_tokenizer": tgt_tok.to_dict(),
        "recipe": {**RECIPE, "seed": seed, "corpus": "model.data.translation_corpus"}, "metrics": metrics})
    print(metrics)


def load():
    """(model, English tokenizer, Chinese tokenizer) of the shipped weights."""
    model, meta = checkpoints.load(NAME)
    return model, WordTokenizer.from_dict(meta["tokenizer"]), WordTokenizer.from_dict(meta["tgt_tokenizer"])


def measure(model, src_tok, tgt_tok, pairs=None) -> dict:
    """Greedy translations of the held-out pairs: exact match (whole sentence) and character BLEU-4,
    overall and split by held-out templates vs held-out word combinations."""
    pairs = pairs if pairs is not None else corpus.heldout_pairs()
    model.eval()
    hyps = []
    for i in range(0, len(pairs), 128):
        chunk = pairs[i:i + 128]
        ids = translate.greedy_batch(model, [src_tok.encode(p.en).ids for p in chunk])
        hyps += [translate.zh_text(tgt_tok, h) for h in ids]
    refs = [p.zh for p in pairs]
    held_t = [p.template in corpus.HELDOUT_TEMPLATES for p in pairs]

    def exact(mask):
        sel = [h == r for h, r, m in zip(hyps, refs, mask) if m]
        return round(sum(sel) / max(1, len(sel)), 4)
    return {"exact_match_heldout": exact([True] * len(pairs)),
            "bleu_heldout": round(translate.bleu(hyps, refs), 4),
            "exact_match_heldout_templates": exact(held_t),
            "exact_match_heldout_combinations": exact([not m for m in held_t]),
            "heldout_n": len(pairs), **head_measures(model, src_tok, [p.en for p in pairs])}


def head_measures(model, src_tok, sources: list[str], span: int = 16, n_seqs: int = 8) -> dict:
    """Best previous-token head of the encoder's self-attention on held-out sources, and its best induction head
    on random spans of source tokens (model.analysis.head_scores, as for every text model)."""
    from model.analysis.head_scores import best, induction_scores, text_previous_token_scores
    from model.data.word_tokenizer import SPECIALS
    prev, prev_at = best(text_previous_token_scores(model, [src_tok.encode(s).ids for s in sources[:48]]))
    ind, ind_at = best(induction_scores(model, span=span, n_seqs=n_seqs, low=len(SPECIALS)))
    return {"previous_token_score_best": round(prev, 4), "previous_token_head": list(prev_at),
            "induction_score_best": round(ind, 4), "induction_head": list(ind_at)}


def evaluate() -> dict:
    """Figures of the shipped weights; one thread (small matrices run fastest alone, and leave the other core free)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return measure(*load())
    finally:
        torch.set_num_threads(before)
