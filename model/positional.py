"""Positional encodings, the entry other code and checks read: `sinusoidal(n, d)` (Vaswani et al. 2017,
sec. 3.5) and the learned table; the implementation lives in model/engine/positions.py."""
from model.engine.positions import PositionalEncoding, added_positions, learned_table, sinusoidal

__all__ = ["PositionalEncoding", "added_positions", "learned_table", "sinusoidal"]
