"""Raw attention beside attention weighted by the norm of what it moves (Kobayashi et al. 2020), the norms
themselves, and each layer's mixing share. numpy + labels in, Plotly out."""
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _
from labels import layer_label

from .grid import layout, stops
from .heatmap import safe_labels
from .theme import WEIGHT_SCALE


def plot_side_by_side(left: np.ndarray, right: np.ndarray, *, labels, titles: tuple[str, str],
                      title: str | None = None) -> go.Figure:
    """Two (N, N) row-stochastic matrices on one colour scale [0, 1], left and right, same token labels."""
    xs = safe_labels(labels)
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.12)
    hover = _("query") + ": %{y}<br>" + _("key") + ": %{x}<br>" + _("share") + ": %{z:.5f}<extra></extra>"
    for col, m in ((1, left), (2, right)):
        fig.add_trace(go.Heatmap(z=np.asarray(m, np.float32), x=xs, y=xs, zmin=0, zmax=1,
                                 colorscale=stops(WEIGHT_SCALE), showscale=col == 2, hovertemplate=hover,
                                 colorbar=dict(title=dict(text=_("share of the row")), thickness=14)), 1, col)
    n = len(xs)
    fig.update_layout(**layout(title, max(380, min(760, 14 * n + 200))))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(tickangle=-60)
    return fig


def plot_norms(norms: np.ndarray, labels, *, title: str | None = None) -> go.Figure:
    """(N,) ‖f(x_j)‖ of one head, one bar per key."""
    hover = _("key {key}<br>‖f(x)‖ {norm}").format(key="%{x}", norm="%{y:.4f}")
    return go.Figure(go.Bar(x=safe_labels(labels), y=np.asarray(norms, np.float64), marker_color="#6baed6",
                            hovertemplate=hover + "<extra></extra>"),
                     layout=layout(title, 300, xaxis=dict(tickangle=-60),
                                   yaxis=dict(title=dict(text=_("‖f(x_j)‖")), rangemode="tozero")))


def plot_mixing(share: np.ndarray, *, title: str | None = None) -> go.Figure:
    """share: (L, N) per layer and token; bars: the layer's mean, whiskers: its smallest and largest token,
    a dashed line at the one half raw rollout assumes."""
    s = np.asarray(share, np.float64)
    mean = s.mean(-1)
    names = [layer_label(lay) for lay in range(len(s))]
    fig = go.Figure(go.Bar(x=names, y=mean, marker_color="#6baed6", name=_("mixing share"),
                           error_y=dict(type="data", symmetric=False, array=s.max(-1) - mean,
                                        arrayminus=mean - s.min(-1)),
                           hovertemplate="%{x}: %{y:.3f}<extra></extra>"),
                    layout=layout(title, 300, yaxis=dict(range=[0, 1], title=dict(text=_("attention's share")),
                                                         tickformat=".0%")))
    fig.add_hline(y=0.5, line_dash="dash", line_color="#555", annotation_text=_("raw rollout: one half"))
    return fig
