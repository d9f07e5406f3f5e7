"""Figures of the training lab: the loss curve with the step where each head score crossed its threshold and the
snapshot shown, every head's score over the steps, and one snapshot of every head's attention on the probe."""
import numpy as np
import plotly.graph_objects as go

from i18n import _
from labels import head_label

from .grid import layout, plot_grid
from .head_view import head_colour

CURVE_POINTS = 1500          # the loss curve is averaged over blocks of steps beyond this many points
MARK_COLOURS = ("#d62728", "#2ca02c", "#9467bd", "#ff7f0e")


def smoothed(losses: np.ndarray, points: int = CURVE_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """(steps, losses) with at most `points` points: block means over consecutive steps (step 1 is the first)."""
    losses = np.asarray(losses, dtype=np.float64)
    n = len(losses)
    block = max(1, -(-n // points))
    m = n // block * block
    steps = np.arange(1, n + 1, dtype=np.float64)
    if block == 1:
        return steps, losses
    heads = (steps[:m].reshape(-1, block).mean(1), losses[:m].reshape(-1, block).mean(1))
    if m == n:
        return heads
    return np.append(heads[0], steps[m:].mean()), np.append(heads[1], losses[m:].mean())


def plot_loss(losses, *, marks: dict[str, int] | None = None, current: int | None = None,
              title: str | None = None) -> go.Figure:
    """losses: one per step (step 1 first). marks: label -> step, a dashed vertical line each (a score that
    crossed its threshold there); current: the snapshot shown, a grey line."""
    steps, values = smoothed(losses)
    fig = go.Figure(go.Scatter(x=steps, y=values, mode="lines", name=_("loss"), line=dict(color="#1f77b4"),
                               hovertemplate=_("step %{x:.0f}<br>loss %{y:.3f}") + "<extra></extra>"),
                    layout=layout(title, 300))
    for i, (label, step) in enumerate((marks or {}).items()):
        colour = MARK_COLOURS[i % len(MARK_COLOURS)]
        fig.add_vline(x=step, line=dict(color=colour, dash="dash", width=2))
        fig.add_annotation(x=step, y=1 - 0.12 * i, yref="paper", text=label, showarrow=False, xanchor="left",
                           font=dict(color=colour), bgcolor="rgba(255,255,255,0.8)")
    if current is not None:
        fig.add_vline(x=current, line=dict(color="#7f7f7f", width=1))
    fig.update_layout(xaxis_title=_("step"), yaxis_title=_("loss (nats per token)"), showlegend=False)
    return fig


def plot_scores(steps, table, *, name: str, threshold: float | None = None, current: int | None = None,
                title: str | None = None) -> go.Figure:
    """table (S, L, H): one score of every head at each of the S snapshot steps, a line per head; the threshold
    dotted, the snapshot shown as a grey line."""
    table = np.asarray(table, dtype=np.float64)
    S, L, H = table.shape
    traces = [go.Scatter(x=list(steps), y=table[:, lay, h], mode="lines", name=head_label(lay, h),
                         line=dict(color=head_colour(lay * H + h), dash="solid" if lay % 2 == 0 else "dot"),
                         hovertemplate=head_label(lay, h) + _(" · step %{x}<br>") + name + ": %{y:.3f}<extra></extra>")
              for lay in range(L) for h in range(H)]
    fig = go.Figure(traces, layout=layout(title, 300))
    if threshold is not None:
        fig.add_hline(y=threshold, line=dict(color="#555", dash="dot", width=1))
    if current is not None:
        fig.add_vline(x=current, line=dict(color="#7f7f7f", width=1))
    fig.update_layout(xaxis_title=_("step"), yaxis_title=name, yaxis_range=[0, 1.02])
    return fig


def plot_snapshot(weights: np.ndarray, *, scores: dict[str, np.ndarray] | None = None,
                  names: dict[str, str] | None = None, title: str | None = None) -> go.Figure:
    """weights (L, H, T, T): every head on the probe at one snapshot, one image; each map's hover lists its
    scores (names: kind -> shown name)."""
    L, H = weights.shape[:2]
    text = None
    if scores:
        text = [["<br>".join(f"{(names or {}).get(k, k)}: {v[lay][h]:.2f}" for k, v in scores.items())
                 for h in range(H)] for lay in range(L)]
    fig, _image = plot_grid(np.asarray(weights, dtype=np.float32), cell_text=text, title=title)
    return fig
