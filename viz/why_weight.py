"""Why one weight: the q_i,d · k_j,d products summed into the score, and the row of scores the softmax
turned into weights. numpy + labels in, Plotly out (built from plain dicts, viz/unchecked.py: each figure
reruns with the page)."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import _

from .grid import layout
from .heatmap import safe_labels
from .theme import FONT
from .unchecked import figure

POSITIVE, NEGATIVE, PICKED, OTHER = "#2166ac", "#b2182b", "#ff7f0e", "#6baed6"


def plot_products(products: np.ndarray, top, *, title: str | None = None) -> go.Figure:
    """products: (D,) q_i,d · k_j,d; `top` dimensions drawn solid, the rest faded; blue adds, red subtracts."""
    p = np.asarray(products, np.float64)
    top = {int(d) for d in top}
    hover = _("dimension {d}<br>q·k term {value}").format(d="%{x}", value="%{y:+.5f}")
    return figure([dict(type="bar", x=list(range(len(p))), y=p.tolist(), hovertemplate=hover + "<extra></extra>",
                        marker=dict(color=[POSITIVE if v >= 0 else NEGATIVE for v in p],
                                    opacity=[1.0 if d in top else 0.35 for d in range(len(p))]))],
                  layout(title, 300, xaxis=dict(title=dict(text=_("dimension d of the head")), dtick=4),
                         yaxis=dict(title=dict(text="q<sub>i,d</sub> · k<sub>j,d</sub>"))))


def plot_row(scores: np.ndarray, weights: np.ndarray, labels, picked: int | None, *, positions=None,
             title: str | None = None) -> go.Figure:
    """The query's row: pre-softmax scores (top; masked keys, −∞, left out) and weights (bottom); the picked key
    (an index into scores, or None) in orange. positions: each key's place in the text, for its label (default
    0, 1, …). Two stacked axis domains of one layout."""
    s = np.asarray(scores, np.float64)
    shown = [float(v) if np.isfinite(v) else None for v in s]
    xs = safe_labels(labels) if positions is None else [f"{html.escape(str(t), quote=False)} ·{int(p)}"
                                                         for t, p in zip(labels, positions)]
    colours = [PICKED if j == picked else OTHER for j in range(len(s))]
    key, score, weight = _("key"), _("score"), _("weight")
    return figure([
        dict(type="bar", x=xs, y=shown, marker=dict(color=colours), name=score, xaxis="x", yaxis="y",
             hovertemplate=f"{key}: %{{x}}<br>{score}: %{{y:.4f}}<extra></extra>"),
        dict(type="bar", x=xs, y=np.asarray(weights, np.float64).tolist(), marker=dict(color=colours), name=weight,
             xaxis="x2", yaxis="y2", hovertemplate=f"{key}: %{{x}}<br>{weight}: %{{y:.5f}}<extra></extra>")],
        layout(title, 420, showlegend=False,
               xaxis=dict(domain=[0, 1], anchor="y", matches="x2", showticklabels=False),
               yaxis=dict(domain=[0.53, 1], anchor="x", title=dict(text=_("score (before softmax)"), font=FONT)),
               xaxis2=dict(domain=[0, 1], anchor="y2", tickangle=-60),
               yaxis2=dict(domain=[0, 0.47], anchor="x2", title=dict(text=_("weight (after softmax)"), font=FONT))))


def with_click_targets(fig: go.Figure, matrix: np.ndarray, *, q_labels, k_labels, decimals: int = 6) -> go.Figure:
    """A zoom heatmap (grid.plot_zoom) with an invisible marker on every cell, so a click selects the cell (Plotly
    selects points of scatter traces, not heatmap cells). The markers hover as the heatmap does."""
    m = np.asarray(matrix, np.float32)
    ys, xs = safe_labels(q_labels), safe_labels(k_labels)
    rows, cols = np.divmod(np.arange(m.size), m.shape[1])
    query, key, weight = _("query"), _("key"), _("weight")
    target = dict(type="scatter", x=[xs[j] for j in cols], y=[ys[i] for i in rows], mode="markers",
                  customdata=m.ravel(), marker=dict(color="rgba(0,0,0,0)", size=max(4, min(30, 600 // len(xs)))),
                  hovertemplate=f"{query}: %{{y}}<br>{key}: %{{x}}<br>{weight}: %{{customdata:.{decimals}f}}"
                                "<extra></extra>", showlegend=False, name=_("cells"))
    spec = fig.to_plotly_json()
    return figure([*spec["data"], target], {**spec["layout"], "clickmode": "event+select"})
