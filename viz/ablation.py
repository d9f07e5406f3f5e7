"""Head-ablation pictures: how much each head's attention changed, how much the output changed at each token,
a head's weights after minus before, and held-out accuracy with each head removed. numpy + labels in, Plotly out."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import _
from labels import head_label, head_only, layer_label

from .grid import layout, stops
from .heatmap import safe_labels
from .theme import DIVERGING_SCALE, WEIGHT_SCALE
from .unchecked import figure

REMOVED_COLOUR = "#d62728"


def _marks(cells, H: int) -> list[dict]:
    """Red outlines around the (layer, head) cells of an (L, H) heatmap."""
    return [dict(type="rect", x0=h - 0.5, x1=h + 0.5, y0=layer - 0.5, y1=layer + 0.5, xref="x", yref="y",
                 line=dict(color=REMOVED_COLOUR, width=3)) for layer, h in cells]


def plot_attention_change(change: np.ndarray, *, removed, title: str | None = None) -> go.Figure:
    """change: (L, H) mean total-variation change of each head's rows in [0, 1]; removed heads outlined."""
    L, H = change.shape
    removed = {tuple(c) for c in removed}
    text = [[_("removed") if (lay, h) in removed else f"{change[lay, h]:.3f}" for h in range(H)] for lay in range(L)]
    name = _("change of the rows")
    return figure([dict(
        type="heatmap", z=change.astype(np.float32), x=[head_only(h) for h in range(H)],
        y=[layer_label(lay) for lay in range(L)], text=text, texttemplate="%{text}", zmin=0.0,
        zmax=max(0.05, float(change.max())), colorscale=stops(WEIGHT_SCALE),
        colorbar=dict(title=dict(text=name), thickness=14),
        hovertemplate="%{y} %{x}<br>" + name + ": %{z:.4f}<extra></extra>")],
        layout(title, max(240, 60 * L + 110), yaxis=dict(autorange="reversed"), shapes=_marks(sorted(removed), H)))


def plot_output_change(kl: np.ndarray, tokens, flipped, *, title: str | None = None) -> go.Figure:
    """kl: (N,) KL(before ‖ after) of the output at each token (nats); flipped: (N,) its top token changed.
    Built from plain dicts (viz/unchecked.py): a colour per bar costs Plotly's checks ~10 ms."""
    hover = _("token {token}<br>KL {kl}<br>{changed}").format(token="%{x}", kl="%{y:.4g}", changed="%{customdata}")
    changed, same = _("first choice changed"), _("same first choice")
    return figure([dict(type="bar", x=safe_labels(tokens), y=np.asarray(kl, np.float64).tolist(),
                        marker=dict(color=[REMOVED_COLOUR if f else "#6baed6" for f in flipped]),
                        customdata=[changed if f else same for f in flipped], hovertemplate=hover + "<extra></extra>")],
                  layout(title, 320, xaxis=dict(tickangle=-60, title=dict(text=_("token"))),
                         yaxis=dict(title=dict(text=_("KL(before ‖ after), nats")), rangemode="tozero")))


def plot_difference(diff: np.ndarray, *, q_labels, k_labels, title: str | None = None) -> go.Figure:
    """diff: (Nq, Nk) weights after minus before, diverging colours centred on 0."""
    d = np.asarray(diff, dtype=np.float32)
    lim = max(1e-6, float(np.abs(d).max()))
    name = _("after − before")
    return figure([dict(
        type="heatmap", z=d, x=safe_labels(k_labels), y=safe_labels(q_labels), zmin=-lim, zmax=lim,
        colorscale=stops(DIVERGING_SCALE), colorbar=dict(title=dict(text=name), thickness=14),
        hovertemplate=_("query") + ": %{y}<br>" + _("key") + ": %{x}<br>" + name + ": %{z:+.5f}<extra></extra>")],
        layout(title, max(360, min(900, 22 * d.shape[0] + 160)),
               yaxis=dict(autorange="reversed", title=dict(text=_("query (attends from)"))),
               xaxis=dict(title=dict(text=_("key (attended to)")), tickangle=-60)))


def plot_head_effects(without: np.ndarray, base: float, *, chosen: tuple[int, int], name: str,
                      title: str | None = None) -> go.Figure:
    """without: (L, H) accuracy with each head removed; base: with none removed. Each cell shows the accuracy
    and its change; colour = the drop (red: the head mattered); the coreference head outlined."""
    L, H = without.shape
    drop = base - np.asarray(without, np.float64)
    text = [[f"{without[lay, h]:.3f}<br>{0.0 - drop[lay, h]:+.3f}" for h in range(H)] for lay in range(L)]
    lim = max(0.05, float(np.abs(drop).max()))
    hover = _("without {head}: {acc}").format(head="%{y} %{x}", acc="%{customdata:.4f}")
    return figure([dict(
        type="heatmap", z=drop.astype(np.float32), x=[head_only(h) for h in range(H)],
        y=[layer_label(lay) for lay in range(L)], customdata=np.asarray(without, np.float64), text=text,
        texttemplate="%{text}", zmin=-lim, zmax=lim, colorscale=stops(DIVERGING_SCALE),
        colorbar=dict(title=dict(text=_("drop in {name}").format(name=name)), thickness=14),
        hovertemplate=hover + "<extra></extra>")],
        layout(title, max(260, 70 * L + 110), yaxis=dict(autorange="reversed"), shapes=_marks([chosen], H)))


def head_list(heads) -> str:
    """"L0 H1, L3 H0" (escaped for a Plotly title)."""
    return html.escape(", ".join(head_label(*h) for h in heads))
