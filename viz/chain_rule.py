"""The chain rule as bars: one bar per piece, its factor's logarithm ln Pr(piece | the pieces before it), one row per
sentence on a shared scale, so two sentences' factors compare at a glance."""
import html

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _

from .theme import HEAD_COLOURS, style


def plot_chain_rule(rows: dict[str, tuple[list[str], np.ndarray]], *, title: str | None = None) -> go.Figure:
    """rows: a label -> (pieces (N,), ln Pr of each (N,)) per sentence, drawn top to bottom on one y scale."""
    fig = make_subplots(rows=len(rows), cols=1, subplot_titles=[html.escape(k) for k in rows],
                        vertical_spacing=0.25 if len(rows) > 1 else 0.1, shared_yaxes=True)
    low = min([float(np.min(lp)) for _p, lp in rows.values() if len(lp)] + [-1.0])
    hover = _("piece: %{customdata[0]}<br>ln Pr: %{y:.3f}<br>Pr: %{customdata[1]:.6f}") + "<extra></extra>"
    for r, (pieces, log_probs) in enumerate(rows.values(), start=1):
        labels = [f"{html.escape(p, quote=False)} ·{i}" for i, p in enumerate(pieces)]
        lp = np.asarray(log_probs, float)
        fig.add_trace(go.Bar(x=labels, y=lp, marker_color=HEAD_COLOURS[r - 1], showlegend=False,
                             customdata=np.stack([np.array(pieces, dtype=object), np.exp(lp)], 1),
                             hovertemplate=hover), row=r, col=1)
        fig.update_yaxes(range=[low * 1.05, 0], title=_("ln Pr(piece | before)"), row=r, col=1)
        fig.update_xaxes(tickangle=-45, row=r, col=1)
    fig = style(fig, title, height=260 * len(rows) + 90)
    fig.update_layout(margin_t=90 if title else 50)                # the sentences' titles below the figure's
    return fig
