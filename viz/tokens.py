"""Figures for the tokenization page: the sequence length each way of cutting a text gives and the N² query-key
pairs that length costs one attention head in one layer; a one-hot column T of the lookup X = Ω_e·T."""
import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _

from .theme import HEAD_COLOURS, WEIGHT_SCALE, style


def plot_sequence_costs(lengths: np.ndarray, pairs: np.ndarray, *, labels, title: str | None = None) -> go.Figure:
    """Two bar charts side by side, one bar per way of cutting the text: its length N and its N² attention
    pairs per head per layer. lengths, pairs: (K,); labels: K names (words, BPE pieces, …)."""
    n = np.asarray(lengths, dtype=np.int64)
    p = np.asarray(pairs, dtype=np.int64)
    if n.shape != p.shape or len(labels) != len(n):
        raise ValueError(f"{len(labels)} labels, {n.shape} lengths and {p.shape} pairs must match")
    names = [html.escape(str(s), quote=False) for s in labels]
    colours = [HEAD_COLOURS[i % len(HEAD_COLOURS)] for i in range(len(names))]
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=(_("Sequence length N"), _("Attention pairs N² (one head, one layer)")))
    fig.add_trace(go.Bar(x=names, y=n, marker_color=colours, name=_("tokens N"), text=[f"{v:,}" for v in n],
                         textposition="outside", cliponaxis=False,
                         hovertemplate="%{x}<br>" + _("N = {n} tokens").format(n="%{y:,}") + "<extra></extra>"),
                  row=1, col=1)
    fig.add_trace(go.Bar(x=names, y=p, marker_color=colours, name=_("pairs N²"), text=[f"{v:,}" for v in p],
                         textposition="outside", cliponaxis=False,
                         hovertemplate="%{x}<br>" + _("N² = {n} query-key pairs").format(n="%{y:,}")
                         + "<extra></extra>"), row=1, col=2)
    fig.update_yaxes(title_text=_("tokens"), rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text=_("query-key pairs"), rangemode="tozero", row=1, col=2)
    fig.update_layout(showlegend=False)
    return style(fig, title, 380)


def plot_one_hot(column: np.ndarray, *, hot_label: str, title: str | None = None) -> go.Figure:
    """column: (|V|,) a one-hot column of T drawn as a strip, one cell per vocabulary id; the cell that holds
    the 1 is named with hot_label (escaped). Hover gives the id and the value."""
    col = np.asarray(column, dtype=np.float64)
    hot = np.flatnonzero(col)
    fig = go.Figure(go.Heatmap(z=col[None, :], x=np.arange(len(col)), zmin=0, zmax=1, colorscale=WEIGHT_SCALE,
                               showscale=False, xgap=0,
                               hovertemplate=_("id {id}").format(id="%{x}") + "<br>T = %{z:.0f}<extra></extra>"))
    for i in hot:
        fig.add_annotation(x=int(i), y=0, text=_("id {id}: {entry} = 1").format(
                               id=int(i), entry=html.escape(hot_label, quote=False)),
                           showarrow=True, arrowhead=2, ax=0, ay=-38, font=dict(size=13))
    fig.update_yaxes(showticklabels=False, title_text="")
    fig.update_xaxes(title_text=_("vocabulary id (0 … {last})").format(last=len(col) - 1),
                     range=[-0.5, len(col) - 0.5])
    fig = style(fig, title, 230)
    fig.update_layout(margin=dict(t=95 if title else 60))          # room for the arrow's label above the strip
    return fig
