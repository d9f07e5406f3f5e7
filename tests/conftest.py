"""Shared fixtures: tiny random models for code tests, the shipped ones for claims about them."""
import random

import numpy as np
import pytest
import torch

import i18n
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer

CONTEXT_LANGUAGE = i18n._source[0]      # i18n's own language source (set_language), before any app run replaces it


@pytest.fixture(autouse=True)
def language_from_set_language():
    """Every test reads the language set with i18n.set_language, whatever ran before it: an AppTest run installs
    its session's language source (app.py calls i18n.use) for the whole process."""
    i18n.use(CONTEXT_LANGUAGE)


@pytest.fixture(autouse=True)
def seeded_per_test():
    """Every test starts from the same random state, whatever ran before it: a failure reproduces alone."""
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)


@pytest.fixture
def tiny_config():
    return ModelConfig(vocab_size=40, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=32)


@pytest.fixture
def tiny_model(tiny_config):
    torch.manual_seed(0)
    return Transformer(tiny_config).eval()


def save_random_text_model(folder, name: str, text: str, seed: int = 0, tokenizer: str = "word", **config):
    """Save a random text Transformer as checkpoint `name` in `folder`: tokenizer "word" (a vocabulary built from
    `text`) or "bpe" (the shipped byte-level BPE); config overrides ModelConfig's defaults.
    Returns (model, tokenizer)."""
    from model import checkpoints
    from model.data import bpe
    from model.data.word_tokenizer import WordTokenizer
    tok = bpe.load() if tokenizer == "bpe" else WordTokenizer.build([text])
    torch.manual_seed(seed)
    cfg = ModelConfig(vocab_size=len(tok), **config)
    model = Transformer(cfg).eval()
    checkpoints.save(name, model, {"arch": "model.engine.transformer:Transformer", "config": cfg.to_dict(),
                                   "tokenizer": tok.to_dict(), "modality": "text", "recipe": {}, "metrics": {},
                                   "text_input": "bos" if cfg.kind == "decoder" else "cls_sep"},
                     assets=folder)
    return model, tok
