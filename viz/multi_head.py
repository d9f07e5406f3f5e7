"""Every head of one layer side by side: the attention maps a multi-head layer computes before their outputs are
concatenated and mixed by W_O."""
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _

from . import ticks
from .heatmap import safe_labels
from .theme import FONT, WEIGHT_SCALE, style


def plot_heads_side_by_side(weights: np.ndarray, tokens: list[str], titles: list[str], *,
                            title: str | None = None) -> go.Figure:
    """weights (H, T, T): one map per head, in a row, sharing the query axis and one colour scale [0, 1]; titles: H
    head names. Every row and column is labelled (ticks.every_label), the font fitted so that none overlap."""
    H, T = weights.shape[0], weights.shape[1]
    if len(titles) != H or weights.shape[2] != T or len(tokens) != T:
        raise ValueError(f"weights {weights.shape}, {len(titles)} titles and {len(tokens)} tokens do not agree")
    labels = safe_labels(tokens)
    fig = make_subplots(rows=1, cols=H, shared_yaxes=True, horizontal_spacing=0.015,
                        subplot_titles=[str(t) for t in titles])
    hover = (_("query") + ": %{y}<br>" + _("key") + ": %{x}<br>" + _("weight") + ": %{z:.4f}<extra>%{meta}</extra>")
    for h in range(H):
        fig.add_trace(go.Heatmap(z=weights[h].astype(np.float32), x=labels, y=labels, coloraxis="coloraxis",
                                 meta=titles[h], hovertemplate=hover), row=1, col=h + 1)
    fig.update_layout(coloraxis=dict(colorscale=WEIGHT_SCALE, cmin=0, cmax=1,
                                     colorbar=dict(title=_("weight"), thickness=14)))
    fig.update_yaxes(autorange="reversed", **ticks.every_label(labels))
    fig.update_xaxes(**ticks.every_label(labels))
    fig.update_yaxes(title=_("query"), row=1, col=1)
    style(fig, title, height=max(320, min(540, 16 * T + 200)))      # inside a 720-px screen under a title
    ticks.fit(fig, font=FONT["size"], width=ticks.PAGE_WIDTH)
    return fig
