"""Pictures for hierarchical image models (Swin, DaViT): the windows of a stage drawn on the image at that
stage's resolution, a token's window outlined on an attention overlay, every stage side by side (2×2 merging),
and DaViT's channel-attention maps. numpy in, Plotly out; token values (N,) are row-major on the stage's grid."""
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _

from .images import _image_trace, _overlay_trace, _square_axes
from .theme import WEIGHT_SCALE, style

BORDER = "#ffbf00"


def window_box(ids: np.ndarray, token: int) -> tuple[int, int, int, int]:
    """(row0, col0, row1, col1), inclusive, of the window holding `token` on a (g, g) grid of window ids (Swin's
    offset windows are rectangles)."""
    g = ids.shape[1]
    r, c = divmod(token, g)
    same = np.argwhere(ids == ids[r, c])
    (r0, c0), (r1, c1) = same.min(0), same.max(0)
    return int(r0), int(c0), int(r1), int(c1)


def _rect(fig, box, px, colour=BORDER, width=4, **where):
    r0, c0, r1, c1 = box
    fig.add_shape(type="rect", x0=c0 * px - 0.5, x1=(c1 + 1) * px - 0.5, y0=r0 * px - 0.5, y1=(r1 + 1) * px - 0.5,
                  line=dict(color=colour, width=width), **where)


def _window_lines(ids: np.ndarray, px: int) -> list[go.Scatter]:
    """Two line traces (one shape per figure would cost seconds): thin lines between tokens, thick white ones where
    the window changes; one segment per token edge, segments parted by None."""
    g = ids.shape[0]
    segs = {False: ([], []), True: ([], [])}
    for k in range(1, g):
        for i in range(g):
            for thick, (x0, x1, y0, y1) in ((ids[k - 1, i] != ids[k, i], (i * px, (i + 1) * px, k * px, k * px)),
                                            (ids[i, k - 1] != ids[i, k], (k * px, k * px, i * px, (i + 1) * px))):
                xs, ys = segs[bool(thick)]
                xs += [x0 - 0.5, x1 - 0.5, None]
                ys += [y0 - 0.5, y1 - 0.5, None]
    return [go.Scatter(x=xs, y=ys, mode="lines", hoverinfo="skip", showlegend=False,
                       line=dict(color="white" if thick else "rgba(255,255,255,0.35)", width=3 if thick else 1))
            for thick, (xs, ys) in segs.items() if xs]


def plot_windows_on_image(image: np.ndarray, ids: np.ndarray, px: int, *, picked: int | None = None,
                          title: str | None = None, height: int = 320) -> go.Figure:
    """The image with a stage's tokens (thin lines, px pixels a side) and its windows (thick white lines).
    ids: (g, g) window number of each token; picked: a token whose window is outlined in amber."""
    fig = go.Figure([_image_trace(image), *_window_lines(ids, px)])
    if picked is not None:
        _rect(fig, window_box(ids, picked), px)
    _square_axes(fig)
    return style(fig, title, height)


def plot_stage_overlay(image: np.ndarray, values: np.ndarray, grid: int, px: int, *, ids: np.ndarray | None = None,
                       picked: int | None = None, title: str | None = None, name: str | None = None,
                       height: int = 300, look: str = "veil", zmax: float | None = None) -> go.Figure:
    """Attention of one token over a stage's tokens (N,) laid on the image; the token itself outlined in white and,
    with ids (g, g), its window in amber (nothing outside it can be attended)."""
    name = name or _("weight")
    v = np.asarray(values, dtype=np.float64)
    top = float(v.max()) if zmax is None else float(zmax)
    fig = go.Figure([_image_trace(image), _overlay_trace(v, (grid, grid), px, top or 1.0, name, True, look)])
    if picked is not None:
        if ids is not None:
            _rect(fig, window_box(ids, picked), px)
        r, c = divmod(picked, grid)
        _rect(fig, (r, c, r, c), px, colour="white", width=2)
    _square_axes(fig)
    return style(fig, title, height)


def plot_stages(image: np.ndarray, grids: list[int], pixels: list[int], ids: list[np.ndarray], titles: list[str],
                *, picked: list[int | None] | None = None, height: int = 300) -> go.Figure:
    """Every stage side by side: its tokens and windows (shift 0) on the image, each stage's tokens twice the side
    of the one before; picked: per stage, a token whose window is outlined."""
    S = len(grids)
    fig = make_subplots(rows=1, cols=S, subplot_titles=titles, horizontal_spacing=0.03)
    for s in range(S):
        where = dict(row=1, col=s + 1)
        for trace in (_image_trace(image), *_window_lines(ids[s], pixels[s])):
            fig.add_trace(trace, **where)
        if picked and picked[s] is not None:
            _rect(fig, window_box(ids[s], picked[s]), pixels[s], **where)
    for k in range(1, S + 1):
        fig.layout[f"yaxis{'' if k == 1 else k}"].update(scaleanchor=f"x{'' if k == 1 else k}")
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="")
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="", autorange="reversed")
    return style(fig, None, height)


def plot_channel_attention(weights: np.ndarray, *, channels: list[int], title: str | None = None,
                           picked: int | None = None, height: int = 320) -> go.Figure:
    """One group's channel attention (C_g, C_g): row i is how channel `channels[i]` mixes the group's channels.
    picked: a row outlined."""
    labels = [f"c{c}" for c in channels]
    fig = go.Figure(go.Heatmap(z=weights, x=labels, y=labels, zmin=0, colorscale=WEIGHT_SCALE,
                               colorbar=dict(title=_("weight"), thickness=12),
                               hovertemplate=_("channel %{y} → channel %{x}<br>weight %{z:.3f}") + "<extra></extra>"))
    if picked is not None:
        fig.add_shape(type="rect", x0=-0.5, x1=len(labels) - 0.5, y0=picked - 0.5, y1=picked + 0.5,
                      line=dict(color=BORDER, width=3))
    fig.update_yaxes(autorange="reversed", title=_("query channel"), type="category")
    fig.update_xaxes(title=_("key channel"), type="category")
    return style(fig, title, height)


def plot_channel_maps(maps: np.ndarray, titles: list[str], *, height: int = 230) -> go.Figure:
    """Channels' activation maps side by side, one diverging scale centred on 0 for all. maps: (K, g, g), a
    channel's value at each token of the stage (row-major grid); titles: one per map."""
    K = len(maps)
    lim = float(np.abs(maps).max()) or 1.0
    fig = make_subplots(rows=1, cols=K, subplot_titles=titles, horizontal_spacing=0.02)
    for k in range(K):
        fig.add_trace(go.Heatmap(z=maps[k], zmin=-lim, zmax=lim, colorscale="RdBu_r", showscale=k == 0,
                                 colorbar=dict(title=_("activation"), thickness=10),
                                 hovertemplate=_("row %{y}, col %{x}<br>activation %{z:.3f}") + "<extra></extra>"),
                      row=1, col=k + 1)
    for k in range(1, K + 1):
        fig.layout[f"yaxis{'' if k == 1 else k}"].update(scaleanchor=f"x{'' if k == 1 else k}")
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="")
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="", autorange="reversed")
    fig.update_annotations(font=dict(size=12))
    return style(fig, None, height)
