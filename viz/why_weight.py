"""Why one weight: the q_i,d · k_j,d products summed into the score, and the row of scores the softmax
turned into weights. numpy + labels in, Plotly out."""
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _

from .grid import layout
from .heatmap import safe_labels
from .theme import FONT

POSITIVE, NEGATIVE, PICKED = "#2166ac", "#b2182b", "#ff7f0e"


def plot_products(products: np.ndarray, top, *, title: str | None = None) -> go.Figure:
    """products: (D,) q_i,d · k_j,d; `top` dimensions drawn solid, the rest faded; blue adds, red subtracts."""
    p = np.asarray(products, np.float64)
    top = set(int(d) for d in top)
    colours = [POSITIVE if v >= 0 else NEGATIVE for v in p]
    opacity = [1.0 if d in top else 0.35 for d in range(len(p))]
    hover = _("dimension {d}<br>q·k term {value}").format(d="%{x}", value="%{y:+.5f}")
    return go.Figure(go.Bar(x=list(range(len(p))), y=p, marker=dict(color=colours, opacity=opacity),
                            hovertemplate=hover + "<extra></extra>"),
                     layout=layout(title, 300, xaxis=dict(title=dict(text=_("dimension d of the head")), dtick=4),
                                   yaxis=dict(title=dict(text="q<sub>i,d</sub> · k<sub>j,d</sub>"))))


def plot_row(scores: np.ndarray, weights: np.ndarray, labels, picked: int, *, title: str | None = None) -> go.Figure:
    """The query's whole row: pre-softmax scores (top; masked keys, −∞, left out) and weights (bottom);
    the picked key in orange."""
    s = np.asarray(scores, np.float64)
    shown = np.where(np.isfinite(s), s, np.nan)
    xs = safe_labels(labels)
    colours = [PICKED if j == picked else "#6baed6" for j in range(len(s))]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.06)
    fig.add_trace(go.Bar(x=xs, y=shown, marker_color=colours, name=_("score"),
                         hovertemplate=_("key") + ": %{x}<br>" + _("score") + ": %{y:.4f}<extra></extra>"), 1, 1)
    fig.add_trace(go.Bar(x=xs, y=np.asarray(weights, np.float64), marker_color=colours, name=_("weight"),
                         hovertemplate=_("key") + ": %{x}<br>" + _("weight") + ": %{y:.5f}<extra></extra>"), 2, 1)
    fig.update_layout(**layout(title, 420, showlegend=False))
    fig.update_yaxes(title_text=_("score (before softmax)"), row=1, col=1, title_font=FONT)
    fig.update_yaxes(title_text=_("weight (after softmax)"), row=2, col=1, title_font=FONT)
    fig.update_xaxes(tickangle=-60, row=2, col=1)
    return fig
