"""Figures of many traces built from plain dicts, skipping Plotly's per-property checks at build time.
Building the head view's ~40 traces as go.Scatter objects costs ~60 ms; from dicts, ~15 ms. The checks
are not lost: tests/unit/test_unchecked.py rebuilds each such figure with checks on."""
import plotly.graph_objects as go


def figure(traces: list[dict], layout: dict) -> go.Figure:
    """traces: dicts with a "type" key ("scatter", ...); layout: a layout dict (grid.layout)."""
    return go.Figure(data=traces, layout=layout, _validate=False)
