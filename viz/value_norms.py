"""Raw attention beside attention weighted by the norm of what it moves (Kobayashi et al. 2020), the norms
themselves, and each layer's mixing share. numpy + labels in, Plotly out (built from plain dicts,
viz/unchecked.py: the page draws several at each rerun)."""
import numpy as np
import plotly.graph_objects as go

from i18n import _
from labels import layer_label

from .grid import layout, stops
from .heatmap import safe_labels
from .theme import WEIGHT_SCALE
from .unchecked import figure

BAR = "#6baed6"
HALVES = ((0.0, 0.44), (0.56, 1.0))


def plot_side_by_side(left: np.ndarray, right: np.ndarray, *, labels, titles: tuple[str, str],
                      title: str | None = None) -> go.Figure:
    """Two (N, N) row-stochastic matrices on one colour scale [0, 1], left and right, same token labels."""
    xs = safe_labels(labels)
    hover = _("query") + ": %{y}<br>" + _("key") + ": %{x}<br>" + _("share") + ": %{z:.5f}<extra></extra>"
    names = ("", "2")                              # Plotly names the first axes "x" and "y"
    traces = [dict(type="heatmap", z=np.asarray(m, np.float32), x=xs, y=xs, zmin=0.0, zmax=1.0,
                   colorscale=stops(WEIGHT_SCALE), showscale=k == 1, hovertemplate=hover, xaxis=f"x{names[k]}",
                   yaxis=f"y{names[k]}", colorbar=dict(title=dict(text=_("share of the row")), thickness=14))
              for k, m in enumerate((left, right))]
    axes = {}
    for n, (lo, hi) in zip(names, HALVES):
        axes[f"xaxis{n}"] = dict(domain=[lo, hi], anchor=f"y{n}", tickangle=-60)
        axes[f"yaxis{n}"] = dict(domain=[0, 1], anchor=f"x{n}", autorange="reversed")
    heads = [dict(text=t, x=(lo + hi) / 2, y=1.0, xref="paper", yref="paper", xanchor="center", yanchor="bottom",
                  showarrow=False) for t, (lo, hi) in zip(titles, HALVES)]
    return figure(traces, layout(title, max(380, min(760, 14 * len(xs) + 200)), annotations=heads, **axes))


def plot_norms(norms: np.ndarray, labels, *, title: str | None = None) -> go.Figure:
    """(N,) ‖f(x_j)‖ of one head, one bar per key."""
    hover = _("key {key}<br>‖f(x)‖ {norm}").format(key="%{x}", norm="%{y:.4f}")
    return figure([dict(type="bar", x=safe_labels(labels), y=np.asarray(norms, np.float64).tolist(),
                        marker=dict(color=BAR), hovertemplate=hover + "<extra></extra>")],
                  layout(title, 300, xaxis=dict(tickangle=-60),
                         yaxis=dict(title=dict(text=_("‖f(x_j)‖")), rangemode="tozero")))


def plot_mixing(share: np.ndarray, *, title: str | None = None) -> go.Figure:
    """share: (L, N) per layer and token; bars: the layer's mean, whiskers: its smallest and largest token,
    a dashed line at the one half raw rollout assumes."""
    s = np.asarray(share, np.float64)
    mean = s.mean(-1)
    names = [layer_label(lay) for lay in range(len(s))]
    half = dict(type="line", xref="paper", x0=0, x1=1, y0=0.5, y1=0.5, line=dict(color="#555", dash="dash"))
    note = dict(text=_("raw rollout: one half"), xref="paper", x=1, y=0.5, xanchor="right", yanchor="bottom",
                showarrow=False)
    return figure([dict(type="bar", x=names, y=mean.tolist(), marker=dict(color=BAR), name=_("mixing share"),
                        error_y=dict(type="data", symmetric=False, array=(s.max(-1) - mean).tolist(),
                                     arrayminus=(mean - s.min(-1)).tolist()),
                        hovertemplate="%{x}: %{y:.3f}<extra></extra>")],
                  layout(title, 300, shapes=[half], annotations=[note],
                         yaxis=dict(range=[0, 1], title=dict(text=_("attention's share")), tickformat=".0%")))
