"""Figures for Attention Lab: numpy arrays and labels in, Plotly figures (or PNG bytes) out.
No torch, no Streamlit."""
