"""Coreference pictures: arrows from a pronoun over the text, heads ranked by accuracy, and the
difference of two sentences' attention (a minimal pair). numpy + labels in, Plotly figures out."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import _
from labels import head_label

from . import ticks
from .theme import DIVERGING_SCALE, FONT, style

ARROW_COLOUR = "#d62728"


def _layout_tokens(tokens: list[str], per_line: int, char_w: float = 0.62) -> tuple[np.ndarray, np.ndarray]:
    """x, y centres of tokens written left to right, wrapped after ~per_line characters' width."""
    xs, ys, x, line = [], [], 0.0, 0
    for t in tokens:
        w = max(2, len(t)) * char_w + 1.2
        if x > 0 and x + w > per_line:
            x, line = 0.0, line + 1
        xs.append(x + w / 2)
        ys.append(-line * 3.0)
        x += w
    return np.array(xs), np.array(ys)


def plot_arrows(tokens: list[str], source: int, weights: np.ndarray, *, unknown=None, min_weight: float = 0.03,
                title: str | None = None, per_line: float = 70.0, font_size: int = 17,
                answer: int | None = None) -> go.Figure:
    """Arcs from tokens[source] to every token it attends to with weight >= min_weight; arc width and
    opacity grow with the weight; the answer is outlined (by default the strongest target; a page that reads the
    answer among some words only, as a pretrained model's among content words, passes it). weights: (N,) one
    attention row.
    per_line: line width in layout units (a character is 0.62); at font_size 17 a unit takes about 14 px, so
    70 suits a desktop column and 24 a phone (about 350 px)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (len(tokens),):
        raise ValueError(f"weights has shape {w.shape}; expected ({len(tokens)},)")
    xs, ys = _layout_tokens(tokens, per_line)
    best = int(w.argmax()) if answer is None else int(answer)
    unknown = list(unknown) if unknown is not None else [False] * len(tokens)
    fig = go.Figure()
    top = float(ys.max()) + 1.5
    for j in np.argsort(w):                       # strongest drawn last, on top
        if w[j] < min_weight or j == source:
            continue
        x0, y0, x1, y1 = xs[source], ys[source] + 0.6, xs[j], ys[j] + 0.6
        lift = 1.0 + 0.06 * abs(x1 - x0) + abs(y1 - y0) * 0.4
        cx, cy = (x0 + x1) / 2, max(y0, y1) + lift
        t = np.linspace(0, 1, 30)
        px = (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t ** 2 * x1
        py = (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t ** 2 * y1
        top = max(top, float(py.max()) + 0.6)
        fig.add_trace(go.Scatter(x=px, y=py, mode="lines", hoverinfo="skip", showlegend=False,
                                 line=dict(color=ARROW_COLOUR, width=1 + 9 * w[j]), opacity=0.25 + 0.75 * w[j]))
        fig.add_trace(go.Scatter(x=[x1], y=[y1 + 0.45], mode="markers", hoverinfo="skip", showlegend=False,
                                 marker=dict(symbol="triangle-down", size=8 + 10 * w[j], color=ARROW_COLOUR,
                                             opacity=0.25 + 0.75 * w[j])))
    labels = [html.escape(t, quote=False) + ("?" if u else "") for t, u in zip(tokens, unknown)]
    hover = [f"{lab} ·{i}<br>" + _("weight {w}").format(w=f"{w[i]:.4f}")
             + ("<br>" + _("not in the vocabulary") if unknown[i] else "") for i, lab in enumerate(labels)]
    for i, lab in enumerate(labels):
        fig.add_annotation(x=xs[i], y=ys[i], text=lab, showarrow=False, hovertext=hover[i],
                           font=dict(size=font_size, color="#b2182b" if unknown[i] else "#111"),
                           bgcolor="#fde0dd" if i == source else "#c6dbef" if i == best else "rgba(0,0,0,0)",
                           bordercolor="#d62728" if i == source else "#2171b5" if i == best else "rgba(0,0,0,0)",
                           borderwidth=2, borderpad=3)
    # an invisible trace carries the tokens, so hovering anywhere over a word shows its weight
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers", text=labels, hovertext=hover, hoverinfo="text",
                             showlegend=False, marker=dict(size=22, opacity=0)))
    fig.update_xaxes(visible=False, range=[-1, max(per_line, float(xs.max()) + 4)])
    fig.update_yaxes(visible=False, range=[float(ys.min()) - 1.5, top])
    return style(fig, title, int(60 + 28 * (top - float(ys.min()) + 1.5)))


def plot_head_ranking(accuracy: np.ndarray, *, chosen: tuple[int, int] | None = None,
                      baselines: dict[str, float] | None = None, title: str | None = None) -> go.Figure:
    """accuracy: (L, H) in [0, 1]. Horizontal bars, best head on top; chosen head highlighted; baselines
    drawn as dashed vertical lines."""
    acc = np.asarray(accuracy, dtype=np.float64)
    L, H = acc.shape
    order = np.argsort(-acc.ravel(), kind="stable")
    names = [head_label(*divmod(int(i), H)) for i in order]
    colours = ["#d62728" if chosen is not None and (i // H, i % H) == tuple(chosen) else "#6baed6" for i in order]
    fig = go.Figure(go.Bar(x=acc.ravel()[order], y=names, orientation="h", marker_color=colours,
                           text=[f"{v:.1%}" for v in acc.ravel()[order]], textposition="outside",
                           hovertemplate="%{y}: %{x:.4f}<extra></extra>"))
    for k, (name, value) in enumerate((baselines or {}).items()):
        fig.add_vline(x=value, line_dash="dash", line_color="#555",
                      annotation_text=f"{name} {value:.0%}", annotation_position="top" if k % 2 == 0 else "bottom")
    fig.update_yaxes(autorange="reversed", title=_("head"))
    fig.update_xaxes(range=[0, 1.12], title=_("argmax accuracy at the pronoun"), tickformat=".0%")
    return style(fig, title, 120 + 24 * L * H)


def plot_pair_difference(diff: np.ndarray, *, tokens: list[str], row_labels: list[str],
                         title: str | None = None) -> go.Figure:
    """diff: (rows, N) attention of sentence A minus sentence B at the pronoun, one row per head,
    on the N tokens both sentences share. Diverging colours centred on 0."""
    d = np.asarray(diff, dtype=np.float64)
    xs = [f"{html.escape(t, quote=False)} ·{i}" for i, t in enumerate(tokens)]
    lim = max(1e-6, float(np.abs(d).max()))
    fig = go.Figure(go.Heatmap(z=d, x=xs, y=row_labels, zmin=-lim, zmax=lim, colorscale=DIVERGING_SCALE,
                               colorbar=dict(title="A − B"),
                               hovertemplate="%{y} · %{x}<br>A − B: %{z:+.4f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title=_("head"), **ticks.every_label(row_labels))
    fig.update_xaxes(title=_("token"), **ticks.every_label(xs))
    style(fig, title, max(280, 26 * d.shape[0] + 150))
    ticks.fit(fig, font=FONT["size"], width=ticks.PAGE_WIDTH)
    return fig
