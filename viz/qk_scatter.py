"""Queries and keys of one head as points on one plane (AttentionViz, Yeh et al. 2023), with lines joining the
strongest query-key pairs. numpy + labels in, Plotly out."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import _

from .grid import layout
from .unchecked import figure

QUERY_COLOUR, KEY_COLOUR, LINE_COLOUR = "#0072b2", "#e69f00", "rgba(90, 90, 90, 0.45)"   # Okabe–Ito


def plot_qk(queries: np.ndarray, keys: np.ndarray, *, q_text, k_text, pairs: np.ndarray,
            explained: np.ndarray, title: str | None = None) -> go.Figure:
    """queries (N, 2), keys (M, 2) projected; q_text, k_text: hover labels; pairs (P, 3) rows (query, key,
    weight) joined by lines; explained (2,): each axis's share of the variance."""
    xs, ys = [], []
    for i, j, _w in np.asarray(pairs).reshape(-1, 3):
        xs += [float(queries[int(i), 0]), float(keys[int(j), 0]), None]
        ys += [float(queries[int(i), 1]), float(keys[int(j), 1]), None]
    q_hover = [_("query {token}").format(token=html.escape(str(t), quote=False)) for t in q_text]
    k_hover = [_("key {token}").format(token=html.escape(str(t), quote=False)) for t in k_text]
    traces = [
        dict(type="scatter", x=xs, y=ys, mode="lines", line=dict(color=LINE_COLOUR, width=1), hoverinfo="skip",
             name=_("strongest pairs")),
        dict(type="scatter", x=queries[:, 0].tolist(), y=queries[:, 1].tolist(), mode="markers", name=_("queries"),
             text=q_hover, marker=dict(color=QUERY_COLOUR, size=8, symbol="circle"),
             hovertemplate="%{text}<extra></extra>"),
        dict(type="scatter", x=keys[:, 0].tolist(), y=keys[:, 1].tolist(), mode="markers", name=_("keys"),
             text=k_hover, marker=dict(color=KEY_COLOUR, size=8, symbol="diamond"),
             hovertemplate="%{text}<extra></extra>")]
    axis = _("principal component {k} ({share} of the variance)")
    return figure(traces, layout(
        title, 560, legend=dict(orientation="h", y=-0.12),
        xaxis=dict(title=dict(text=axis.format(k=1, share=f"{explained[0]:.0%}")), zeroline=False),
        yaxis=dict(title=dict(text=axis.format(k=2, share=f"{explained[1]:.0%}")), zeroline=False,
                   scaleanchor="x")))
