"""Figures for the "Why attention" page: parameters against the text length N (one dense layer over the whole
text against self-attention), and the measured time and sequential steps of an RNN against attention."""
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _

from .theme import HEAD_COLOURS, style

DENSE, ATTENTION = HEAD_COLOURS[3], HEAD_COLOURS[0]
RNN, RNN_LIBRARY = HEAD_COLOURS[1], HEAD_COLOURS[4]


def plot_param_growth(n: np.ndarray, dense: np.ndarray, attention: np.ndarray, *, d: int, marked_n: int | None = None,
                      model: tuple[str, int] | None = None, title: str | None = None) -> go.Figure:
    """Log-log parameters against N: one dense layer over N·d inputs ((N·d)² + N·d), self-attention (flat),
    and a shipped model's total (flat) when given as (name, count). marked_n: a marker on the dense line."""
    fig = go.Figure()
    hover = _("N = {n}: {count} parameters").format(n="%{x:,}", count="%{y:,.0f}") + "<extra></extra>"
    fig.add_scatter(x=n, y=dense, mode="lines", name=_("one dense layer, N·{d:,} → N·{d:,}").format(d=d),
                    line=dict(color=DENSE, width=3), hovertemplate=hover)
    fig.add_scatter(x=n, y=attention, mode="lines",
                    name=_("self-attention, d = {d:,} (W_Q, W_K, W_V, W_O)").format(d=d),
                    line=dict(color=ATTENTION, width=3), hovertemplate=hover)
    if model is not None:
        fig.add_scatter(x=[n[0], n[-1]], y=[model[1], model[1]], mode="lines",
                        name=_("{name}, whole model").format(name=model[0]),
                        line=dict(color=HEAD_COLOURS[2], width=2, dash="dash"),
                        hovertemplate=_("{count} parameters at any N").format(count="%{y:,.0f}") + "<extra></extra>")
    if marked_n is not None:
        marked = float(marked_n * d) ** 2 + marked_n * d
        fig.add_scatter(x=[marked_n], y=[marked], mode="markers+text", name=f"N = {marked_n:,}", showlegend=False,
                        marker=dict(size=12, color=DENSE), text=[f"N = {marked_n:,}"], textposition="top left",
                        hovertemplate=hover)
    fig.update_xaxes(type="log", title=_("words in the text, N"))
    fig.update_yaxes(type="log", title=_("parameters"), exponentformat="power")
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.2, x=0))
    return style(fig, title, 440)


def plot_rnn_timing(n, rnn_ms, rnn_library_ms, attention_ms, *, title: str | None = None) -> go.Figure:
    """Two panels against N (log-log): measured milliseconds per sequence, and the steps that must run one after
    another (N for the RNN, 1 for attention)."""
    n = np.asarray(n, dtype=np.float64)
    fig = make_subplots(rows=1, cols=2, subplot_titles=(_("Time for the whole sequence (measured)"),
                                                        _("Steps that must wait for the one before")),
                        horizontal_spacing=0.12)
    hover = "N = %{x:,}: %{y:,.2f} ms<extra>%{fullData.name}</extra>"
    for ys, name, colour, dash in ((rnn_ms, _("RNN, one cell call per position"), RNN, "solid"),
                                   (rnn_library_ms, _("torch.nn.RNN (the same loop in C++)"), RNN_LIBRARY, "dot"),
                                   (attention_ms, _("self-attention, all positions at once"), ATTENTION, "solid")):
        fig.add_scatter(x=n, y=np.maximum(np.asarray(ys, dtype=np.float64), 1e-3), mode="lines+markers", name=name,
                        line=dict(color=colour, width=3, dash=dash), hovertemplate=hover, row=1, col=1)
    steps = _("N = {n}: {steps} sequential steps").format(n="%{x:,}", steps="%{y:,}") + \
        "<extra>%{fullData.name}</extra>"
    fig.add_scatter(x=n, y=n, mode="lines+markers", name=_("RNN: N steps"), line=dict(color=RNN, width=3),
                    hovertemplate=steps, row=1, col=2)
    fig.add_scatter(x=n, y=np.ones_like(n), mode="lines+markers", name=_("attention: 1 step"),
                    line=dict(color=ATTENTION, width=3), hovertemplate=steps, row=1, col=2)
    fig.update_xaxes(type="log", title=_("sequence length N"))
    fig.update_yaxes(type="log", title=_("milliseconds"), exponentformat="power", row=1, col=1)
    fig.update_yaxes(type="log", title=_("sequential steps"), row=1, col=2)

    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.25, x=0))
    return style(fig, title, 460)
