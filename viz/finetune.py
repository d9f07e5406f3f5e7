"""Fine-tuning figures: learning curves (full fine-tuning against a frozen encoder, baselines as flat lines), how
much each head's attention moved, a head's class probabilities and a span head's start and end scores."""
import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _
from labels import head_only, layer_label

from . import ticks
from .theme import FONT, HEAD_COLOURS, WEIGHT_SCALE, style

DASHES = ("dash", "dot", "dashdot")


def plot_learning_curves(curves: dict[str, tuple[np.ndarray, np.ndarray]], *, baselines: dict[str, float] | None = None,
                         title: str | None = None, y_title: str = "", x_title: str | None = None,
                         y_range: tuple[float, float] | None = (0.0, 1.0)) -> go.Figure:
    """curves: a name -> (steps (n,), values (n,)) per run, drawn as lines with markers; baselines: a name -> value
    drawn as flat dashed lines across the steps."""
    fig = go.Figure()
    hover = "%{fullData.name}<br>" + _("step %{x}") + "<br>%{y:.3f}<extra></extra>"
    for i, (name, (steps, values)) in enumerate(curves.items()):
        fig.add_trace(go.Scatter(x=np.asarray(steps), y=np.asarray(values, float), mode="lines+markers",
                                 name=html.escape(name), line=dict(color=HEAD_COLOURS[i], width=3),
                                 hovertemplate=hover))
    last = max((int(np.max(s)) for s, _v in curves.values() if len(s)), default=1)
    for j, (name, value) in enumerate((baselines or {}).items()):
        fig.add_trace(go.Scatter(x=[0, last], y=[value, value], mode="lines", name=html.escape(name),
                                 line=dict(color="#7f7f7f", dash=DASHES[j % len(DASHES)], width=2),
                                 hovertemplate="%{fullData.name}: %{y:.3f}<extra></extra>"))
    fig.update_xaxes(title=_("training step") if x_title is None else x_title)
    fig.update_yaxes(title=y_title, range=list(y_range) if y_range else None)
    fig = style(fig, title, 380)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.2, x=0))
    return fig


def plot_head_change(change: np.ndarray, *, title: str | None = None, zmax: float | None = None) -> go.Figure:
    """change: (L, H) mean total-variation distance per head, the value written in each cell."""
    m = np.asarray(change, float)
    L, H = m.shape
    fig = go.Figure(go.Heatmap(
        z=m, x=[head_only(h) for h in range(H)], y=[layer_label(layer) for layer in range(L)], zmin=0,
        zmax=zmax or max(float(m.max()), 1e-6), colorscale=WEIGHT_SCALE, text=np.round(m, 3),
        texttemplate="%{text}", colorbar=dict(title=_("moved")),
        hovertemplate="%{y} %{x}<br>" + _("mean distance: %{z:.4f}") + "<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title=_("layer"))
    fig.update_xaxes(title=_("head"))
    return style(fig, title, 80 * L + 120)


def plot_attention_pair(before: np.ndarray, after: np.ndarray, tokens: list[str], *,
                        titles: tuple[str, str], title: str | None = None) -> go.Figure:
    """One head's attention before and after fine-tuning, (T, T) each, side by side, and their difference on hover."""
    labels = [f"{html.escape(t, quote=False)} ·{i}" for i, t in enumerate(tokens)]
    fig = make_subplots(rows=1, cols=2, subplot_titles=[html.escape(t) for t in titles], horizontal_spacing=0.12)
    hover = _("query: %{y}<br>key: %{x}<br>weight: %{z:.4f}") + "<extra></extra>"
    for col, w in ((1, before), (2, after)):
        fig.add_trace(go.Heatmap(z=np.asarray(w, float), x=labels, y=labels, zmin=0, zmax=1, colorscale=WEIGHT_SCALE,
                                 showscale=col == 2, colorbar=dict(title=_("weight")), hovertemplate=hover),
                      row=1, col=col)
        fig.update_yaxes(autorange="reversed", row=1, col=col, title=_("query") if col == 1 else None,
                         **ticks.every_label(labels))
        fig.update_xaxes(row=1, col=col, title=_("key"), **ticks.every_label(labels))
    fig = style(fig, title, max(360, min(820, 22 * len(tokens) + 200)))
    fig.update_layout(margin_t=90 if title else 50)
    ticks.fit(fig, font=FONT["size"], width=ticks.PAGE_WIDTH)
    return fig


def plot_probabilities(labels: list[str], rows: dict[str, np.ndarray], *, title: str | None = None) -> go.Figure:
    """Horizontal bars: each label's probability under each model (rows: a name -> (n,) probabilities)."""
    fig = go.Figure()
    hover = "%{fullData.name}<br>%{y}: %{x:.3f}<extra></extra>"
    for i, (name, probs) in enumerate(rows.items()):
        fig.add_trace(go.Bar(y=[html.escape(v) for v in labels], x=np.asarray(probs, float), orientation="h",
                             name=html.escape(name), marker_color=HEAD_COLOURS[i], hovertemplate=hover))
    fig.update_xaxes(range=[0, 1], title=_("probability"))
    fig.update_yaxes(autorange="reversed")
    fig = style(fig, title, 16 * len(labels) * max(1, len(rows)) + 170)
    fig.update_layout(barmode="group", legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1))
    return fig


def plot_span_scores(pieces: list[str], start: np.ndarray, end: np.ndarray, *, chosen: tuple[int, int],
                     title: str | None = None) -> go.Figure:
    """The start and end scores of the passage's pieces (n,) each, the chosen span (first, last piece) shaded."""
    labels = [f"{html.escape(p, quote=False)} ·{i}" for i, p in enumerate(pieces)]
    fig = go.Figure()
    for i, (name, values) in enumerate(((_("start score"), start), (_("end score"), end))):
        fig.add_trace(go.Bar(x=labels, y=np.asarray(values, float), name=name, marker_color=HEAD_COLOURS[i],
                             hovertemplate="%{x}<br>%{fullData.name}: %{y:.2f}<extra></extra>"))
    s, e = chosen
    fig.add_vrect(x0=s - 0.5, x1=e + 0.5, fillcolor="#2ca02c", opacity=0.15, line_width=0)
    fig.update_xaxes(tickangle=-60)
    fig.update_yaxes(title=_("score (logit)"))
    fig = style(fig, title, 380)
    fig.update_layout(barmode="group", legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1))
    return fig
