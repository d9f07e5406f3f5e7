"""Figures of per-head statistics: one statistic over layers × heads with the automatic labels, and
"attends to" bars of one query token for every head of a layer."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import N_, _
from labels import head_only, layer_label

from .grid import layout
from .head_view import head_colour
from .theme import WEIGHT_SCALE

SHORT = {"previous-token": N_("prev"), "sink": N_("sink"), "broad/positional": N_("broad"),
         "coreference": N_("coref")}


def plot_stat_map(values: np.ndarray, *, name: str, labels: list[list[list[str]]] | None = None,
                  zmin: float | None = None, zmax: float | None = None, decimals: int = 3) -> go.Figure:
    """values (L, H) of one statistic; each cell shows its value and short labels (prev, sink, …)."""
    L, H = values.shape
    text = [[f"{values[lay, h]:.{decimals}f}" + ("<br>" + " ".join(_(SHORT.get(x, x)) for x in labels[lay][h])
                                                  if labels and labels[lay][h] else "")
             for h in range(H)] for lay in range(L)]
    return go.Figure(go.Heatmap(
        z=values.astype(np.float32), x=[head_only(h) for h in range(H)], y=[layer_label(lay) for lay in range(L)],
        text=text, texttemplate="%{text}", zmin=zmin, zmax=zmax, colorscale=WEIGHT_SCALE,
        colorbar=dict(title=name, thickness=14),
        hovertemplate="%{y} %{x}<br>" + name + f": %{{z:.{decimals}f}}<extra></extra>"),
        layout=layout(None, max(240, 60 * L + 100), yaxis=dict(autorange="reversed")))


def plot_attends_to(layer_weights: np.ndarray, tokens: list[str], query: int, *, heads: list[int],
                    k: int = 6, per_row: int = 4) -> go.Figure:
    """layer_weights (H, N, N). One panel per head (at most `per_row` a row): the k keys the query
    token weighs most, as bars."""
    heads = list(heads) or [0]
    cols, rows = min(per_row, len(heads)), -(-len(heads) // per_row)
    gap_x, gap_y = 0.16, 0.3 / rows
    width, height = (1 - gap_x * (cols - 1)) / cols, (1 - gap_y * (rows - 1)) / rows
    traces, axes, titles = [], {}, []
    hover = _("key {key}<br>weight {weight}").format(key="%{y}", weight="%{x:.6f}")
    for i, h in enumerate(heads):
        r, c = divmod(i, cols)
        row = layer_weights[h, query]
        top = np.argsort(-row, kind="stable")[:k]
        suffix = "" if i == 0 else str(i + 1)
        names = [f"{html.escape(tokens[j], quote=False)} ·{j}" for j in top]
        traces.append(go.Bar(x=row[top].astype(np.float32), y=names,
                             orientation="h", showlegend=False, marker_color=head_colour(h), xaxis=f"x{suffix}",
                             yaxis=f"y{suffix}", hovertemplate=f"{hover}<extra>{head_only(h)}</extra>"))
        left, top_edge = c * (width + gap_x), 1 - r * (height + gap_y)
        axes[f"xaxis{suffix}"] = dict(domain=[left, left + width], range=[0, 1], anchor=f"y{suffix}",
                                      tickvals=[0, 0.5, 1], ticktext=["0", "0.5", ""])
        axes[f"yaxis{suffix}"] = dict(domain=[top_edge - height, top_edge], autorange="reversed",
                                      anchor=f"x{suffix}", automargin=True)
        titles.append(dict(text=head_only(h), x=left + width / 2, y=top_edge, xref="paper", yref="paper",
                           xanchor="center", yanchor="bottom", showarrow=False))
    return go.Figure(traces, layout=layout(None, (70 + 34 * k) * rows, annotations=titles, **axes))
