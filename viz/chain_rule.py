"""The chain rule as bars: one bar per piece, its factor's logarithm ln Pr(piece | the pieces before it), one row per
sentence on a shared scale, so two sentences' factors compare at a glance."""
import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _

from . import ticks
from .theme import HEAD_COLOURS, style
from .ticks import columns

AXIS = "ln Pr"                  # notation, the same in every language
LARGEST_TICK_PX = 22.4          # px: the largest type a tick label gets (presenting: the house 14 px × 1.6)


def plot_chain_rule(rows: dict[str, tuple[list[str], np.ndarray]], *, title: str | None = None) -> go.Figure:
    """rows: a label -> (pieces (N,), ln Pr of each (N,)) per sentence, drawn top to bottom on one y scale."""
    height = 260 * len(rows) + 90
    longest = max((columns(f"{p} ·{i}") for pieces, _lp in rows.values() for i, p in enumerate(pieces)), default=1)
    # between two rows: the upper row's pieces slanted at 45°, at the largest type drawn (presenting), then the lower
    # row's title
    gap = longest * ticks.CHAR * LARGEST_TICK_PX * 0.71 + 2.5 * LARGEST_TICK_PX
    fig = make_subplots(rows=len(rows), cols=1, subplot_titles=[html.escape(k) for k in rows], shared_yaxes=True,
                        vertical_spacing=min(0.5, max(0.25, gap / (height - 100))) if len(rows) > 1 else 0.1)
    low = min([float(np.min(lp)) for _p, lp in rows.values() if len(lp)] + [-1.0])
    hover = _("piece: %{customdata[0]}<br>ln Pr: %{y:.3f}<br>Pr: %{customdata[1]:.6f}") + "<extra></extra>"
    for r, (pieces, log_probs) in enumerate(rows.values(), start=1):
        labels = [f"{html.escape(p, quote=False)} ·{i}" for i, p in enumerate(pieces)]
        lp = np.asarray(log_probs, float)
        fig.add_trace(go.Bar(x=labels, y=lp, marker_color=HEAD_COLOURS[r - 1], showlegend=False,
                             customdata=np.stack([np.array(pieces, dtype=object), np.exp(lp)], 1),
                             hovertemplate=hover), row=r, col=1)
        # the axis says only "ln Pr" (what it is of, the title says): a row is shorter than the words would be
        fig.update_yaxes(range=[low * 1.05, 0], title=AXIS, row=r, col=1)
        fig.update_xaxes(tickangle=-45, row=r, col=1)
    fig = style(fig, title, height=height)
    fig.update_layout(margin_t=90 if title else 50)                # the sentences' titles below the figure's
    return fig
