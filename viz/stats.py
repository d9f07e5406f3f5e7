"""Figures of per-head statistics: one statistic over layers × heads with the automatic labels, and
"attends to" bars of one query token for every head of a layer."""
import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .head_view import head_colour
from .theme import WEIGHT_SCALE, style

SHORT = {"previous-token": "prev", "sink": "sink", "broad/positional": "broad", "coreference": "coref"}


def plot_stat_map(values: np.ndarray, *, name: str, labels: list[list[list[str]]] | None = None,
                  zmin: float | None = None, zmax: float | None = None, decimals: int = 3) -> go.Figure:
    """values (L, H) of one statistic; each cell shows its value and short labels (prev, sink, …)."""
    L, H = values.shape
    text = [[f"{values[lay, h]:.{decimals}f}" + ("<br>" + " ".join(SHORT.get(x, x) for x in labels[lay][h])
                                                  if labels and labels[lay][h] else "")
             for h in range(H)] for lay in range(L)]
    fig = go.Figure(go.Heatmap(
        z=values.astype(np.float32), x=[f"head {h}" for h in range(H)], y=[f"layer {lay}" for lay in range(L)],
        text=text, texttemplate="%{text}", zmin=zmin, zmax=zmax, colorscale=WEIGHT_SCALE,
        colorbar=dict(title=name, thickness=14),
        hovertemplate="%{y} · %{x}<br>" + name + f": %{{z:.{decimals}f}}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    return style(fig, None, max(240, 60 * L + 100))


def plot_attends_to(layer_weights: np.ndarray, tokens: list[str], query: int, *, heads: list[int],
                    k: int = 6) -> go.Figure:
    """layer_weights (H, N, N). One panel per head: the k keys the query token weighs most, as bars."""
    heads = list(heads) or [0]
    fig = make_subplots(rows=1, cols=len(heads), subplot_titles=[f"head {h}" for h in heads],
                        horizontal_spacing=0.06)
    for col, h in enumerate(heads, start=1):
        row = layer_weights[h, query]
        top = np.argsort(-row, kind="stable")[:k]
        names = [f"{html.escape(tokens[j], quote=False)} ·{j}" for j in top]
        fig.add_trace(go.Bar(x=row[top].astype(np.float32), y=names, orientation="h", showlegend=False,
                             marker_color=head_colour(h),
                             hovertemplate="key %{y}<br>weight %{x:.6f}<extra>head " + str(h) + "</extra>"),
                      row=1, col=col)
        fig.update_yaxes(autorange="reversed", row=1, col=col)
        fig.update_xaxes(range=[0, 1], row=1, col=col)
    return style(fig, None, 70 + 34 * k)
