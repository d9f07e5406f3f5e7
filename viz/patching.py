"""Activation patching pictures: the layer × position map of what copying one residual state of sentence A into
sentence B does to the coreference head's weight (cells where the answer flips marked, every cell clickable), and the
score split of the pronoun's row into a query side, a key side and their interaction, with the earlier writers of
each side. numpy + labels in, Plotly figures out."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import _

from .theme import DIVERGING_SCALE, style

FLIP_COLOUR = "#111111"
PICKED_COLOUR = "#ff7f0e"
SIDE_COLOURS = {"query": "#2171b5", "key": "#e6550d", "interaction": "#9e9ac8"}


def cell_labels(tokens: list[str]) -> list[str]:
    """One unique column label per piece: "‘ big’ ·15" (escaped; the position keeps repeated pieces apart)."""
    return [f"{html.escape(t, quote=False)} ·{i}" for i, t in enumerate(tokens)]


def plot_patch_map(effect: np.ndarray, flips: np.ndarray, *, tokens: list[str], row_labels: list[str],
                   answers: list[list[str]] | None = None, picked: tuple[int, int] | None = None,
                   value_name: str | None = None, title: str | None = None) -> go.Figure:
    """effect: (L, T) the change in the head's weight when the state at (layer, position) is patched, NaN where the
    position cannot be patched (drawn blank); flips: (L, T) bool, marked with a cross; answers: (L, T) the patched
    run's answer, for the hover; picked: a cell outlined. Every patchable cell carries a transparent click target
    whose customdata is [layer, position]."""
    e = np.asarray(effect, dtype=np.float64)
    f = np.asarray(flips, dtype=bool)
    L, T = e.shape
    xs, ys = cell_labels(tokens), list(row_labels)
    value_name = value_name or _("change in weight")
    lim = max(0.05, float(np.nanmax(np.abs(e))) if np.isfinite(e).any() else 0.05)
    fig = go.Figure(go.Heatmap(z=e, x=xs, y=ys, zmin=-lim, zmax=lim, colorscale=DIVERGING_SCALE, xgap=1, ygap=1,
                               colorbar=dict(title=dict(text=value_name, side="right")), hoverinfo="skip"))
    rows, cols = np.nonzero(np.isfinite(e))
    answer, flipped, moved = _("answer"), _("the answer flips"), value_name
    text = [f"{ys[i]} · {xs[j]}<br>{moved}: {e[i, j]:+.4f}"
            + (f"<br>{answer}: {html.escape(answers[i][j], quote=False)}" if answers is not None else "")
            + (f"<br><b>{flipped}</b>" if f[i, j] else "") for i, j in zip(rows, cols)]
    fig.add_trace(go.Scatter(
        x=[xs[j] for j in cols], y=[ys[i] for i in rows], mode="markers", text=text, hoverinfo="text",
        customdata=np.stack([rows, cols], 1).tolist(), showlegend=False, name=_("cells"),
        marker=dict(symbol=["x-thin" if f[i, j] else "square" for i, j in zip(rows, cols)],
                    size=[13 if f[i, j] else max(8, min(28, 900 // max(T, 1))) for i, j in zip(rows, cols)],
                    color=[FLIP_COLOUR if f[i, j] else "rgba(0,0,0,0)" for i, j in zip(rows, cols)],
                    line=dict(width=[3 if f[i, j] else 0 for i, j in zip(rows, cols)], color=FLIP_COLOUR))))
    if f.any():                                  # a legend entry saying what the crosses are
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=flipped, showlegend=True,
                                 marker=dict(symbol="x-thin", size=12, line=dict(width=3, color=FLIP_COLOUR))))
    if picked is not None and 0 <= picked[0] < L and 0 <= picked[1] < T:
        i, j = picked
        fig.add_shape(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5, xref="x", yref="y",
                      line=dict(color=PICKED_COLOUR, width=3))
    fig.update_xaxes(title=_("position in sentence B (the state patched there)"), tickangle=-60, type="category",
                     showgrid=False)
    fig.update_yaxes(autorange="reversed", title=_("residual stream entering"), type="category", showgrid=False)
    fig.update_layout(legend=dict(orientation="h", yanchor="bottom", y=1.0, xanchor="right", x=1.0),
                      clickmode="event+select", plot_bgcolor="#eeeeee")
    return style(fig, title, max(260, 46 * L + 190))


def plot_score_split(query_side: np.ndarray, key_side: np.ndarray, interaction: np.ndarray, *, words: list[str],
                     title: str | None = None) -> go.Figure:
    """(K,) each: the three parts of the change of the pronoun's score to each candidate word, stacked (negative
    parts below zero); a diamond marks their sum, the change itself."""
    parts = {"query": np.asarray(query_side, float), "key": np.asarray(key_side, float),
             "interaction": np.asarray(interaction, float)}
    names = {"query": _("query side (q_A − q_B)·k_B"), "key": _("key side q_B·(k_A − k_B)"),
             "interaction": _("interaction (q_A − q_B)·(k_A − k_B)")}
    xs = [html.escape(w, quote=False) for w in words]
    fig = go.Figure([go.Bar(x=xs, y=v, name=names[k], marker_color=SIDE_COLOURS[k],
                            hovertemplate="%{x}: %{y:+.4f}<extra>" + names[k] + "</extra>") for k, v in parts.items()])
    total = sum(parts.values())
    change = _("change A − B")
    fig.add_trace(go.Scatter(x=xs, y=total, mode="markers", name=change,
                             marker=dict(symbol="diamond", size=13, color="#111", line=dict(width=1, color="white")),
                             hovertemplate="%{x}: %{y:+.4f}<extra>" + change + "</extra>"))
    fig.update_layout(barmode="relative", legend=dict(orientation="h", yanchor="top", y=-0.25, x=0))
    fig.update_yaxes(title=_("change in score (÷ √d_k)"), zeroline=True, zerolinecolor="#555")
    fig.update_xaxes(title=_("candidate word"))
    return style(fig, title, 420)


def plot_writers(query_parts: np.ndarray, key_parts: np.ndarray, *, labels: list[str], top: int = 8,
                 title: str | None = None) -> go.Figure:
    """query_parts, key_parts: (S,) each writer's share of the query side and of the key side of one candidate's
    change; the `top` writers by their largest |share|, largest on top, two bars each."""
    q, k = np.asarray(query_parts, float), np.asarray(key_parts, float)
    order = np.argsort(-np.maximum(np.abs(q), np.abs(k)), kind="stable")[:top]
    ys = [html.escape(labels[s], quote=False) for s in order]
    names = {"query": _("into the query side"), "key": _("into the key side")}
    fig = go.Figure([go.Bar(y=ys, x=v[order], orientation="h", name=names[side], marker_color=SIDE_COLOURS[side],
                            hovertemplate="%{y}: %{x:+.4f}<extra>" + names[side] + "</extra>")
                     for side, v in (("query", q), ("key", k))])
    fig.update_layout(barmode="group", legend=dict(orientation="h", yanchor="top", y=-75 / (44 * len(order) + 20),
                                                   x=0))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title=_("share of the change in score"), zeroline=True, zerolinecolor="#555")
    return style(fig, title, 170 + 44 * len(order))
