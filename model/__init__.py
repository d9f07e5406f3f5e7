"""Attention Lab's in-house Transformer engine: torch + numpy only, no Streamlit, no plotting."""
