"""Head view (after BertViz, Vig 2019): tokens in two columns, a line from each query (left) to each
key (right) per head, coloured by head, opacity = weight. Lines are grouped into a few opacity
bins per head so the figure stays small; weights under `min_weight` are not drawn. Its many short arrays are
plain lists: Plotly turns each numpy array into a base64 spec at a fixed cost (~0.2 ms) far above their size."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import _
from labels import head_only

from .grid import layout
from .theme import HEAD_COLOURS
from .unchecked import figure

OPACITY_BINS = 8


def head_colour(head: int) -> str:
    return HEAD_COLOURS[head % len(HEAD_COLOURS)]


def _segments(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(K, 2) [query, key] rows -> x, y float arrays (3K,) of line segments separated by NaN (a gap)."""
    k = len(pairs)
    xs = np.tile(np.array([0.0, 1.0, np.nan]), k)
    ys = np.column_stack([pairs.astype(float), np.full(k, np.nan)]).ravel()
    return xs, ys


def line_pairs(w: np.ndarray, start: int, stop: int, picked: int | None, min_weight: float) -> np.ndarray:
    """[query, key] index pairs of one head's (N, N) weights inside the window that get a line.
    With a picked token: only its row (what it attends to) and its column (what attends to it)."""
    sel = np.zeros_like(w, dtype=bool)
    sel[start:stop, start:stop] = w[start:stop, start:stop] >= min_weight
    if picked is not None:
        focus = np.zeros_like(sel)
        focus[picked, :] = True
        focus[:, picked] = True
        sel &= focus
    return np.argwhere(sel)


def plot_head_view(layer_weights: np.ndarray, tokens: list[str], *, heads: list[int], picked: int | None = None,
                   start: int = 0, stop: int | None = None, min_weight: float = 0.02,
                   title: str | None = None) -> go.Figure:
    """layer_weights (H, N, N) of one layer; tokens (N,). Draws tokens start..stop-1 and, for each
    head in `heads`, lines query -> key with opacity = weight. picked: a token index to focus on."""
    n = layer_weights.shape[-1]
    stop = n if stop is None else min(stop, n)
    if picked is not None and not start <= picked < stop:
        picked = None
    traces = []
    reach = _("{head}: query {query} → key {key}<br>weight {weight}")     # filled with Plotly's %{...} below
    for h in heads:
        w = layer_weights[h]
        pairs = line_pairs(w, start, stop, picked, min_weight)
        vals = w[pairs[:, 0], pairs[:, 1]] if len(pairs) else np.zeros(0)
        bins = np.minimum((vals * OPACITY_BINS).astype(int), OPACITY_BINS - 1)
        for b in range(OPACITY_BINS):
            chosen = pairs[bins == b]
            if not len(chosen):
                continue
            xs, ys = _segments(chosen)
            traces.append(dict(type="scatter", x=xs.tolist(), y=ys.tolist(), mode="lines", hoverinfo="skip",
                               showlegend=False, legendgroup=f"h{h}", opacity=(b + 1) / OPACITY_BINS,
                               line=dict(color=head_colour(h), width=2.5)))
        if picked is not None and len(pairs):
            # hover targets at the far end of the picked token's lines: exact weights
            outgoing = pairs[:, 0] == picked
            traces.append(dict(
                type="scatter", x=np.where(outgoing, 0.97, 0.03).tolist(),
                y=np.where(outgoing, pairs[:, 1], pairs[:, 0]).tolist(),
                mode="markers", marker=dict(size=5, color=head_colour(h), opacity=0.7), showlegend=False,
                legendgroup=f"h{h}", customdata=np.stack([pairs[:, 0], pairs[:, 1], vals], 1).tolist(),
                hovertemplate=reach.format(head=head_only(h), query="%{customdata[0]}", key="%{customdata[1]}",
                                           weight="%{customdata[2]:.6f}") + "<extra></extra>"))
        traces.append(dict(type="scatter", x=[None], y=[None], mode="lines", name=head_only(h), legendgroup=f"h{h}",
                           line=dict(color=head_colour(h), width=4)))
    idx = np.arange(start, stop)
    labels = [html.escape(tokens[i], quote=False) for i in idx]
    bold = ["<b>" + t + "</b>" if i == picked else t for i, t in zip(idx, labels)]
    for x, pos, side in ((0.0, "middle left", _("query")), (1.0, "middle right", _("key"))):
        traces.append(dict(
            type="scatter", x=[x] * len(idx), y=idx.tolist(), mode="markers+text", text=bold, textposition=pos,
            marker=dict(size=9, color=["#ffbf00" if i == picked else "#bbbbbb" for i in idx]),
            customdata=idx.tolist(), showlegend=False, name=side,
            hovertemplate=f"{side} %{{customdata}}: %{{text}}<extra></extra>"))
    return figure(traces, layout(
        title, max(320, 22 * (stop - start) + 120), legend=dict(orientation="h", y=1.02, x=0), dragmode=False,
        clickmode="event+select", xaxis=dict(range=[-0.9, 1.9], visible=False),
        yaxis=dict(range=[stop - 0.5, start - 1.5], visible=False)))
