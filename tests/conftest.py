"""Shared fixtures: tiny random models for code tests, the shipped ones for claims about them."""
import pytest
import torch

from model.config import ModelConfig
from model.transformer import Transformer


@pytest.fixture
def tiny_config():
    return ModelConfig(vocab_size=40, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=32)


@pytest.fixture
def tiny_model(tiny_config):
    torch.manual_seed(0)
    return Transformer(tiny_config).eval()
