"""Held-out accuracy against training-set size, one line per model (a log-scaled x axis: sizes double)."""
import numpy as np
import plotly.graph_objects as go

from i18n import _

from .theme import HEAD_COLOURS, style


def plot_accuracy_curve(sizes, series: dict[str, np.ndarray], *, title: str | None = None,
                        height: int = 360) -> go.Figure:
    """sizes: (K,) training-set sizes; series: name -> (K,) accuracies in [0, 1]."""
    fig = go.Figure([go.Scatter(x=list(sizes), y=list(acc), name=name, mode="lines+markers",
                                line=dict(color=HEAD_COLOURS[i % len(HEAD_COLOURS)], width=3),
                                hovertemplate=name + _(": %{y:.1%} with %{x} training images") + "<extra></extra>")
                     for i, (name, acc) in enumerate(series.items())])
    fig.update_xaxes(type="log", title=_("training images"), tickvals=list(sizes))
    fig.update_yaxes(title=_("held-out accuracy"), tickformat=".0%", range=[0, 1.02])
    fig.update_layout(legend=dict(orientation="h", y=-0.25))
    return style(fig, title, height)
