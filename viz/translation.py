"""Pictures of an encoder-decoder at work: cross-attention (target × source) per head, the alignment as
lines between the two sentences, and the step-by-step view of decoding."""
import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _
from labels import head_only

from .heatmap import safe_labels
from .theme import HEAD_COLOURS, WEIGHT_SCALE, style

LINE_LEVELS = (0.1, 0.25, 0.5, 0.75)      # weights in [level, next level) share one line style


def _esc(tokens) -> list[str]:
    return [html.escape(str(t), quote=False) for t in tokens]


def plot_alignment(weights: np.ndarray, *, src_tokens, tgt_tokens, threshold: float = 0.1,
                   title: str | None = None, colour: str = HEAD_COLOURS[0]) -> go.Figure:
    """Source sentence on top, target sentence below, a line from each target token to each source
    token it attends to with weight ≥ threshold; darker and thicker = more weight.

    weights: (T, S) cross-attention, row t = target token t, rows sum to 1. Hover on a line's
    midpoint gives the exact weight.
    """
    w = np.asarray(weights, dtype=np.float64)
    T, S = w.shape
    xs_src = np.linspace(0, 1, S) if S > 1 else np.array([0.5])
    xs_tgt = np.linspace(0, 1, T) if T > 1 else np.array([0.5])
    fig = go.Figure()
    levels = [max(threshold, lv) for lv in LINE_LEVELS if lv >= threshold] or [threshold]
    levels = sorted(set([threshold] + levels)) + [1.01]
    for lo, hi in zip(levels[:-1], levels[1:]):
        ts, ss = np.nonzero((w >= lo) & (w < hi))
        if not len(ts):
            continue
        x, y = [], []
        for t, s in zip(ts, ss):
            x += [xs_tgt[t], xs_src[s], None]
            y += [0, 1, None]
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", hoverinfo="skip", showlegend=False,
                                 line=dict(color=colour, width=1 + 7 * lo), opacity=min(1.0, 0.25 + lo)))
    ts, ss = np.nonzero(w >= threshold)
    src_esc, tgt_esc = _esc(src_tokens), _esc(tgt_tokens)
    fig.add_trace(go.Scatter(
        x=(xs_tgt[ts] + xs_src[ss]) / 2, y=np.full(len(ts), 0.5), mode="markers", showlegend=False,
        marker=dict(size=8, color=colour, opacity=0.01),
        customdata=np.stack([w[ts, ss]], axis=-1) if len(ts) else None,
        text=[f"{tgt_esc[t]} ·{t} → {src_esc[s]} ·{s}" for t, s in zip(ts, ss)],
        hovertemplate="%{text}<br>" + _("weight: %{customdata[0]:.4f}") + "<extra></extra>"))
    for xs, y, toks, name in ((xs_src, 1, src_esc, _("source")), (xs_tgt, 0, tgt_esc, _("target"))):
        fig.add_trace(go.Scatter(x=xs, y=np.full(len(xs), y), mode="markers+text", text=toks, name=name,
                                 textposition="top center" if y == 1 else "bottom center", showlegend=False,
                                 marker=dict(size=9, color="#333"), textfont=dict(size=17),
                                 hovertemplate=f"{name} %{{text}}<extra></extra>"))
    fig.update_xaxes(visible=False, range=[-0.05, 1.05])
    fig.update_yaxes(visible=False, range=[-0.35, 1.35])
    return style(fig, title, 330)


def plot_head_grid(weights: np.ndarray, *, x_labels, y_labels, title: str | None = None,
                   x_title: str | None = None, y_title: str | None = None, head_names=None) -> go.Figure:
    """All heads of one layer side by side. weights: (H, rows, cols); hover gives head, row, column, weight.
    The axis titles default to "key" and "query"."""
    x_title, y_title = x_title or _("key"), y_title or _("query")
    w = np.asarray(weights, dtype=np.float64)
    H, R, C = w.shape
    names = head_names or [head_only(h) for h in range(H)]
    fig = make_subplots(rows=1, cols=H, subplot_titles=names, horizontal_spacing=0.03, shared_yaxes=True)
    xs, ys = safe_labels(x_labels), safe_labels(y_labels)
    for h in range(H):
        fig.add_trace(go.Heatmap(
            z=w[h], x=xs, y=ys, zmin=0, zmax=1, colorscale=WEIGHT_SCALE, showscale=h == H - 1,
            hovertemplate=f"{names[h]}<br>{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>" + _("weight: %{z:.4f}")
            + "<extra></extra>"),
            row=1, col=h + 1)
    fig.update_yaxes(autorange="reversed")
    fig.update_yaxes(title=y_title, row=1, col=1)
    fig.update_xaxes(tickangle=-60)
    return style(fig, title, max(300, min(900, 24 * R + 190)))


def plot_step_probs(probs: np.ndarray, *, tokens, title: str | None = None) -> go.Figure:
    """Bars: the probability the model gave each token it wrote. probs: (T,) in [0, 1]."""
    p = np.asarray(probs, dtype=np.float64)
    fig = go.Figure(go.Bar(x=safe_labels(tokens), y=p, marker_color=HEAD_COLOURS[0],
                           hovertemplate=_("token: %{x}<br>probability: %{y:.4f}") + "<extra></extra>"))
    fig.update_yaxes(range=[0, 1], title=_("probability"))
    fig.update_xaxes(title=_("token written"), tickangle=-60)
    return style(fig, title, 300)
