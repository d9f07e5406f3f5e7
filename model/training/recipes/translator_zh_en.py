"""translator_zh_en: a Chinese→English encoder-decoder, the translator's architecture (post-LN, d_model 96,
3 encoder + 3 decoder layers, 4 heads), trained on pairs drawn fresh each step from
`model.data.translation_corpus_zh_en` (the translator's sentences read the other way, and possession sentences
with measure words such as the tutorial's 我有一只猫 → "i have a cat"; never a held-out template or word
combination). Chinese is read one character at a time, English written word by word. Evaluated on the 740
held-out pairs: exact match, and corpus BLEU by sacreBLEU on the English side.

`python -m model.train translator_zh_en --threads 1` (stops after at most 7 minutes of CPU time).
"""
import functools
import random
import re
import time

import torch

from model import checkpoints
from model.data import translation_corpus_possession as possession
from model.data import translation_corpus_zh_en as corpus
from model.data.word_tokenizer import BOS, EOS, PAD, WordTokenizer
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.tasks import translation as translate
from model.training.loop import fit, seed_everything
from model.training.recipes.translator import ARCH, head_measures, loss_fn

NAME = "translator_zh_en"
RECIPE = dict(steps=4000, batch=64, lr=1e-3, weight_decay=0.01, label_smoothing=0.0, time_budget_s=420)


def tokenizers() -> tuple[WordTokenizer, WordTokenizer]:
    """(Chinese character tokenizer, English word tokenizer) over everything both grammars can say."""
    return WordTokenizer.build(corpus.all_text_zh()), WordTokenizer.build(corpus.all_words_en())


def _pad(rows: list[list[int]]) -> torch.Tensor:
    T = max(map(len, rows))
    return torch.tensor([r + [PAD] * (T - len(r)) for r in rows])


def batches(src_tok, tgt_tok, batch: int, seed: int):
    """next_batch(step) -> (src (B, S), tgt_in (B, T), tgt_out (B, T)); src the Chinese, tgt_in = [BOS] + English,
    tgt_out = English + [EOS]."""
    rng = random.Random(seed)

    def next_batch(step):
        pairs = [corpus.train_pair(rng) for _ in range(batch)]
        src = [src_tok.encode(p.zh).ids for p in pairs]
        tgt = [tgt_tok.encode(p.en).ids for p in pairs]
        return _pad(src), _pad([[BOS] + t for t in tgt]), _pad([t + [EOS] for t in tgt])
    return next_batch


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
        "text_input": "plain", "direction": "zh-en", "tokenizer": src_tok.to_dict(), "tgt_tokenizer": tgt_tok.to_dict(),
        "recipe": {**RECIPE, "seed": seed, "corpus": "model.data.translation_corpus_zh_en"}, "metrics": metrics})
    print(metrics)


def load():
    """(model, Chinese tokenizer, English tokenizer) of the shipped weights."""
    model, meta = checkpoints.load(NAME)
    return model, WordTokenizer.from_dict(meta["tokenizer"]), WordTokenizer.from_dict(meta["tgt_tokenizer"])


def detokenized(text: str) -> str:
    """"i have a cat ." -> "i have a cat.": sacreBLEU reads plain text and splits the marks off itself (13a)."""
    return re.sub(r" ([.?])", r"\1", text)


def sacrebleu_score(hyps: list[str], refs: list[str]) -> tuple[float, str]:
    """(corpus BLEU on 0-100, sacreBLEU's signature) of English hypotheses against one reference each."""
    from sacrebleu.metrics import BLEU
    metric = BLEU()
    score = metric.corpus_score([detokenized(h) for h in hyps], [[detokenized(r) for r in refs]])
    return score.score, str(metric.get_signature())


def translate_all(model, src_tok, tgt_tok, sources: list[str]) -> list[str]:
    """Greedy English translations of Chinese sentences, batched."""
    model.eval()
    hyps = []
    for i in range(0, len(sources), 128):
        ids = translate.greedy_batch(model, [src_tok.encode(s).ids for s in sources[i:i + 128]])
        hyps += [translate.en_text(tgt_tok, h) for h in ids]
    return hyps


def measure(model, src_tok, tgt_tok, pairs=None) -> dict:
    """Greedy translations of the held-out pairs: exact match (whole sentence), overall and split by held-out
    templates, held-out word combinations and the possession sentences; sacreBLEU on the English side; the
    tutorial's sentence and what the model writes for it."""
    pairs = pairs if pairs is not None else corpus.heldout_pairs()
    hyps = translate_all(model, src_tok, tgt_tok, [p.zh for p in pairs])
    refs = [p.en for p in pairs]
    held_t = [p.template in corpus.HELDOUT_TEMPLATES for p in pairs]
    owned = [corpus.is_possession(p) for p in pairs]

    def exact(mask):
        sel = [h == r for h, r, m in zip(hyps, refs, mask) if m]
        return round(sum(sel) / max(1, len(sel)), 4)
    bleu, signature = sacrebleu_score(hyps, refs)
    zh, en = possession.TUTORIAL
    tutorial = translate_all(model, src_tok, tgt_tok, [zh])[0]
    return {"exact_match_heldout": exact([True] * len(pairs)), "sacrebleu_heldout": round(bleu, 2),
            "exact_match_heldout_templates": exact(held_t),
            "exact_match_heldout_combinations": exact([not m for m in held_t]),
            "exact_match_heldout_possession": exact(owned), "heldout_n": len(pairs),
            "heldout_possession_n": sum(owned), "sacrebleu_signature": signature,
            "tutorial_source": zh, "tutorial_output": tutorial, "tutorial_exact": tutorial == en,
            **head_measures(model, src_tok, [p.zh for p in pairs])}


def evaluate() -> dict:
    """Figures of the shipped weights; one thread (small matrices run fastest alone, and leave the other core free)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return measure(*load())
    finally:
        torch.set_num_threads(before)
