"""Attention Lab's Transformers: torch + numpy only, no Streamlit, no plotting.

Subpackages, each importing only those listed before it: engine → data → architectures → tasks →
analysis → training. Thin entry modules for the commands (train, evaluate, coref, tokenize, positional,
checkpoints, reference; cli: how the commands fail) sit beside them, and jobs: the one queue every heavy job of
a server process runs through (child processes under a memory bound)."""
