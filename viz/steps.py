"""Figures for the step-by-step page: matrices with rounded numbers in the cells and the exact value
on hover, a token's vector through the layer, and the softmax saturation curves behind √d_k."""
import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _
from labels import head_only

from . import ticks
from .heatmap import safe_labels
from .theme import DIVERGING_SCALE, FONT, HEAD_COLOURS, WEIGHT_SCALE, style

MAX_ANNOTATED_COLS = 24        # wider than this, numbers no longer fit in the cells; hover still has them
WIDE_COLS = 8                  # wider than this, cells show 2 decimals in a smaller font
MASKED_GREY = "#d9d9d9"
SCALED_COLOUR, UNSCALED_COLOUR = HEAD_COLOURS[0], HEAD_COLOURS[3]


def exact(value: float) -> str:
    """The shortest string that reads back as the same float64 (repr), with ±∞ spelled out."""
    v = float(value)
    if np.isinf(v):
        return "−∞" if v < 0 else "+∞"
    return repr(v)


def rounded(value: float, decimals: int = 4) -> str:
    v = float(value)
    if np.isinf(v):
        return "−∞" if v < 0 else "+∞"
    return f"{v:.{decimals}f}"


def axis_labels(labels, n: int, prefix: str) -> list[str]:
    """Token labels (escaped, numbered) or dimension labels prefix0, prefix1, …"""
    return safe_labels(labels) if labels is not None else [f"{prefix}{i}" for i in range(n)]


def plot_matrix(matrix: np.ndarray, *, row_labels=None, col_labels=None, title: str | None = None,
                row_title: str | None = None, col_title: str | None = None, row_prefix: str = "#",
                col_prefix: str = "d", weights: bool = False, decimals: int = 4, col_groups: int | None = None,
                highlight_row: int | None = None, height: int | None = None) -> go.Figure:
    """matrix: (rows, cols), may hold -inf (masked scores: grey cells written −∞). Labels: token
    strings (escaped and numbered) or, when None, prefix + index (d0, d1, … for dimensions).

    Cells show the value rounded to `decimals` (2 beyond WIDE_COLS columns; none beyond MAX_ANNOTATED_COLS);
    hover shows row, column and the exact float64. weights=True: 0..1 blues, else a diverging scale
    centred on 0. col_groups: a divider and a head label (H0, H1, …) every col_groups columns (heads in a
    concatenation). highlight_row: outline that row (the picked query). row_title, col_title: the axis titles,
    "token" and "dimension" (translated) when None."""
    row_title = _("token") if row_title is None else row_title
    col_title = _("dimension") if col_title is None else col_title
    m = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
    rows, cols = m.shape
    ys = axis_labels(row_labels, rows, row_prefix)
    xs = axis_labels(col_labels, cols, col_prefix)
    masked = np.isneginf(m)
    z = np.where(np.isfinite(m), m, np.nan)
    # nested lists, not numpy string arrays: serialising those leaks ~0.4 MB a figure (plotly 7 + orjson)
    exact_text = [[exact(v) for v in row] for row in m]
    colour = dict(colorscale=WEIGHT_SCALE, zmin=0.0, zmax=1.0) if weights else dict(
        colorscale=DIVERGING_SCALE, zmid=0.0)
    trace = go.Heatmap(z=z, x=xs, y=ys, customdata=exact_text, **colour,
                       hovertemplate=f"{row_title}: %{{y}}<br>{col_title}: %{{x}}<br>"
                                     + _("value: {value}").format(value="%{customdata}") + "<extra></extra>")
    annotated = cols <= MAX_ANNOTATED_COLS and rows <= 40
    wide = cols > WIDE_COLS
    if annotated:                          # the numbers are the legend: no colour bar, cells apart
        shown = min(decimals, 2) if wide else decimals
        trace.update(text=[["" if k else rounded(v, shown) for v, k in zip(row, krow)] for row, krow in zip(m, masked)],
                     texttemplate="%{text}", textfont=dict(size=10 if wide else 12), showscale=False,
                     xgap=1, ygap=1)
    fig = go.Figure(trace)
    if masked.any():                       # masked cells: grey, written −∞, whatever the size
        fig.add_trace(go.Heatmap(z=np.where(masked, 1.0, np.nan), x=xs, y=ys, zmin=0, zmax=1, showscale=False,
                                 colorscale=[[0, MASKED_GREY], [1, MASKED_GREY]], xgap=1, ygap=1,
                                 text=[["−∞" if k else "" for k in krow] for krow in masked], texttemplate="%{text}",
                                 textfont=dict(size=10 if wide else 12, color="#555555"), hoverinfo="skip"))
    if col_groups and cols > col_groups:
        for c in range(col_groups, cols, col_groups):
            fig.add_vline(x=c - 0.5, line=dict(color="black", width=2))
        for k, c in enumerate(range(0, cols, col_groups)):
            fig.add_annotation(x=c + (col_groups - 1) / 2, y=1.0, yref="paper", yanchor="bottom",
                               text=head_only(k), showarrow=False)
    if highlight_row is not None:
        fig.add_shape(type="rect", x0=-0.5, x1=cols - 0.5, y0=highlight_row - 0.5, y1=highlight_row + 0.5,
                      line=dict(color="black", width=3))
    fig.update_yaxes(autorange="reversed", title=row_title, type="category",
                     **ticks.every_label(ys, picked=highlight_row))
    fig.update_xaxes(title=col_title, type="category", **ticks.every_label(xs))
    cell = 34 if annotated else 18
    style(fig, title, height or max(200, min(900, cell * rows + 150)))
    ticks.fit(fig, font=FONT["size"], width=ticks.PAGE_WIDTH)
    return fig


def plot_trace(names, norms, means, variances, *, title: str | None = None) -> go.Figure:
    """A token's vector at each stop through the layer: ‖v‖, mean and variance side by side.
    names: n step names; norms, means, variances: (n,)."""
    labels = [html.escape(str(n), quote=False) for n in names]
    fig = make_subplots(rows=1, cols=3, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=(_("norm ‖v‖"), _("mean μ"), _("variance σ²")))
    for col, (vals, colour) in enumerate(((norms, HEAD_COLOURS[0]), (means, HEAD_COLOURS[1]),
                                          (variances, HEAD_COLOURS[2])), start=1):
        v = np.asarray(vals, dtype=np.float64)
        fig.add_trace(go.Bar(x=v, y=labels, orientation="h", marker_color=colour, showlegend=False,
                             text=[f"{x:.4f}" for x in v], textposition="inside", insidetextanchor="end", textangle=0,
                             customdata=[exact(x) for x in v],
                             hovertemplate="%{y}: %{customdata}<extra></extra>"), row=1, col=col)
    fig.update_yaxes(autorange="reversed", type="category")
    fig = style(fig, title, max(300, 44 * len(labels) + 120))
    # a number only inside a bar wide enough to hold it (outside, it spilled over the next panel, cut in half);
    # every value is in the table under the chart and in the hover
    fig.update_layout(uniformtext=dict(minsize=10, mode="hide"))
    return fig


def plot_saturation(d_k, max_scaled, max_unscaled, grad_scaled, grad_unscaled, *, current: int | None = None,
                    show_scaled: bool = True, show_unscaled: bool = True, n_keys: int | None = None) -> go.Figure:
    """Mean max softmax weight and mean softmax-gradient norm against d_k (log axis), with and without
    the 1/√d_k scaling. All arrays (len(d_k),); current: the slider's d_k, marked by a line."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=(_("largest softmax weight (→ 1: saturated)"),
                                        _("‖∂softmax/∂scores‖ (→ 0: no gradient)")))
    series = []
    if show_scaled:
        series.append((_("scaled: QKᵀ/√d_k"), max_scaled, grad_scaled, SCALED_COLOUR, "solid"))
    if show_unscaled:
        series.append((_("no scaling: QKᵀ"), max_unscaled, grad_unscaled, UNSCALED_COLOUR, "dash"))
    for name, top, grad, colour, dash in series:
        for col, y in ((1, top), (2, grad)):
            y = np.asarray(y, dtype=np.float64)
            fig.add_trace(go.Scatter(x=np.asarray(d_k), y=y, name=name, legendgroup=name, showlegend=col == 1,
                                     mode="lines+markers", line=dict(color=colour, dash=dash),
                                     customdata=[exact(v) for v in y],
                                     hovertemplate=f"{name}<br>d_k = %{{x}}<br>%{{customdata}}<extra></extra>"),
                          row=1, col=col)
    if current is not None:
        for col in (1, 2):
            fig.add_vline(x=current, line=dict(color="grey", dash="dot"), row=1, col=col)
    fig.update_xaxes(type="log", title="d_k")
    fig.update_yaxes(rangemode="tozero")
    if n_keys:
        fig.update_layout(legend=dict(orientation="h", y=-0.25,
                                      title=_("mean over random queries, {n} keys").format(n=n_keys)))
    return style(fig, None, 380)


def plot_softmax_bars(weights_by_name: dict, *, title: str | None = None, keys=None) -> go.Figure:
    """Softmax weights over the keys for each variant. weights_by_name: name -> (n_keys,); keys: the keys' names
    (k1, k2, … when None). Each bar is labelled with its weight up to 12 keys, beyond only on hover."""
    fig = go.Figure()
    colours = (SCALED_COLOUR, UNSCALED_COLOUR)
    for i, (name, w) in enumerate(weights_by_name.items()):
        w = np.asarray(w, dtype=np.float64)
        x = safe_labels(keys) if keys is not None else [f"k{j + 1}" for j in range(len(w))]
        fig.add_trace(go.Bar(x=x, y=w, name=html.escape(name, quote=False), marker_color=colours[i % 2],
                             text=[f"{v:.4f}" for v in w] if len(w) <= 12 else None, textposition="outside",
                             customdata=[exact(v) for v in w],
                             hovertemplate="%{x}: %{customdata}<extra>%{fullData.name}</extra>"))
    fig.update_yaxes(range=[0, 1.15], title=_("softmax weight"))
    fig.update_xaxes(title=_("key"))

    fig.update_layout(barmode="group")
    return style(fig, title, 340)
