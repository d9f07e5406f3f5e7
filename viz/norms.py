"""LayerNorm against BatchNorm on the same (T, C) activations: the three matrices side by side, and the mean and
standard deviation of each per token (rows) and per dimension (columns)."""
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import N_, _

from .heatmap import safe_labels
from .theme import DIVERGING_SCALE, HEAD_COLOURS, style

NAMES = {"x": N_("input X"), "layer": N_("LayerNorm (each token over its C dimensions)"),
         "batch": N_("BatchNorm (each dimension over the T tokens)")}
COLOURS = {"x": "#7f7f7f", "layer": HEAD_COLOURS[0], "batch": HEAD_COLOURS[1]}


def plot_norm_heatmaps(x: np.ndarray, layer: np.ndarray, batch: np.ndarray, *, tokens,
                       title: str | None = None) -> go.Figure:
    """Three (T, C) heatmaps, tokens down, dimensions across: X on its own diverging scale (its colour bar beside
    it), the two standardised matrices on one shared scale."""
    mats = {"x": np.asarray(x, dtype=np.float64), "layer": np.asarray(layer, dtype=np.float64),
            "batch": np.asarray(batch, dtype=np.float64)}
    rx = float(np.abs(mats["x"]).max()) or 1.0
    rn = max(float(np.abs(mats["layer"]).max()), float(np.abs(mats["batch"]).max())) or 1.0
    ys = safe_labels(tokens)
    fig = make_subplots(rows=1, cols=3, subplot_titles=[_("input X (own scale)"), "LayerNorm(X)", "BatchNorm(X)"],
                        shared_yaxes=True, horizontal_spacing=0.11)
    hover = _("token {token}<br>dimension {dimension}<br>value {value}").format(
        token="%{y}", dimension="%{x}", value="%{z:.4f}")
    for c, (key, m) in enumerate(mats.items(), start=1):
        fig.add_trace(go.Heatmap(z=m, y=ys, coloraxis="coloraxis" if key == "x" else "coloraxis2",
                                 hovertemplate=f"{_(NAMES[key])}<br>{hover}<extra></extra>"), row=1, col=c)
        fig.update_xaxes(title=_("dimension"), row=1, col=c)
    bar = dict(thickness=12, len=0.9)
    fig.update_layout(coloraxis=dict(colorscale=DIVERGING_SCALE, cmin=-rx, cmax=rx, colorbar=dict(x=0.265, **bar)),
                      coloraxis2=dict(colorscale=DIVERGING_SCALE, cmin=-rn, cmax=rn, colorbar=dict(x=1.0, **bar)))
    fig.update_yaxes(autorange="reversed")
    return style(fig, title, max(320, min(760, 22 * len(ys) + 160)))


def plot_norm_stats(stats: dict, *, tokens, title: str | None = None) -> go.Figure:
    """stats: name ("x", "layer", "batch") -> {"token_mean", "token_std" (T,), "dim_mean", "dim_std" (C,)}.
    2 × 2 panels: mean and std per token (left) and per dimension (right)."""
    fig = make_subplots(rows=2, cols=2, shared_xaxes="columns", vertical_spacing=0.1, horizontal_spacing=0.1,
                        subplot_titles=[_("mean of each token (over its C dimensions)"),
                                        _("mean of each dimension (over the T tokens)"),
                                        _("std of each token"), _("std of each dimension")])
    labels = safe_labels(tokens)
    for key, s in stats.items():
        name = _(NAMES[key])
        for row, stat, shown in ((1, "mean", _("mean")), (2, "std", _("std"))):
            for col, axis, xs in ((1, "token", labels), (2, "dim", np.arange(len(s[f"dim_{stat}"])))):
                fig.add_scatter(x=xs, y=s[f"{axis}_{stat}"], mode="lines+markers", name=name,
                                legendgroup=key, showlegend=row == 1 and col == 1, marker=dict(size=5),
                                line=dict(color=COLOURS[key], width=2.5 if key != "x" else 1.5),
                                hovertemplate=f"%{{x}}: {shown} %{{y:.6f}}<extra>{name}</extra>", row=row, col=col)
    fig.update_xaxes(tickangle=-60, row=2, col=1)
    fig.update_xaxes(title=_("dimension"), row=2, col=2)

    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.22, x=0))
    return style(fig, title, 620)
