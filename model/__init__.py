"""Attention Lab's Transformers: torch + numpy only, no Streamlit, no plotting.

Subpackages, each importing only those listed before it: engine → data → architectures → tasks →
analysis → training. Thin entry modules for the commands (train, evaluate, coref, positional,
checkpoints, reference) sit beside them."""
