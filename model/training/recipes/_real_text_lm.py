"""What the language models on real text share (general_gpt, general_encoder): a pre-LN GELU transformer with
learned positions over a byte-level BPE (default: the shipped assets/bpe_8k.json), trained in resumable stages
(model/training/resumable.py), rebuilt from its latest checkpoint for an export."""
from collections.abc import Callable
from functools import partial
from pathlib import Path

from model.data import bpe, real_text
from model.data.bpe import BPETokenizer
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from model.training import resumable
from model.training.loop import seed_everything


def config(r: dict, vocab_size: int, kind: str) -> ModelConfig:
    """The recipe's model; kind "decoder" (causal) or "encoder"."""
    return ModelConfig(vocab_size=vocab_size, d_model=r["d_model"], n_heads=r["n_heads"], n_layers=r["n_layers"],
                       d_ff=r["d_ff"], max_len=r["context"], pos_encoding="learned", norm="pre", kind=kind,
                       activation="gelu")


def sources(stage: dict) -> tuple[str, ...] | None:
    """The corpus sources a stage trains on (None: all of them)."""
    return tuple(stage["sources"]) if stage.get("sources") else None


def run(name: str, kind: str, r: dict, make_batches, loss_fn, folder: Path | None = None,
        load_tokenizer: Callable[[], BPETokenizer] = bpe.load) -> tuple[Transformer, dict]:
    """Train (or, with ATTENTION_LAB_RESUME=1, continue) recipe r's stages from r["seed"], the checkpoint in folder
    (default: the corpus cache). make_batches(tok, state, stage) -> next_batch(step); loss_fn(model, batch) ->
    (loss, tokens). Returns (the model, the last run's state)."""
    seed_everything(r["seed"])
    tok = load_tokenizer()
    model = Transformer(config(r, len(tok), kind))
    if r["tied_embeddings"]:
        resumable.tie(model)
    state = resumable.run_stages(name, model, partial(make_batches, tok), loss_fn, r,
                                 Path(folder or real_text.cache_dir()))
    return model, state


def latest(name: str, kind: str, folder: Path | None = None,
           load_tokenizer: Callable[[], BPETokenizer] = bpe.load) -> tuple[Transformer, dict]:
    """(model, state) from the latest checkpoint of `name` (a run still going or stopped) in folder."""
    return resumable.latest(name, lambda r: Transformer(config(r, len(load_tokenizer()), kind)), folder)
