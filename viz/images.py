"""Pictures for attention over image patches: the image with its numbered patch grid, the patch
sequence the model reads, attention from one token laid back onto the pixels (a spotlight: patches the
token ignores are veiled), all heads at once and class probabilities (Swin's windows and stages: viz/stages.py).
Inputs are numpy: images (h, w) or (h, w, 3) in [0, 1]; per-patch values (N,) in row-major patch order."""
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _
from labels import head_label

from .theme import HEAD_COLOURS, style

VEIL = [[0.0, "rgba(15, 20, 35, 0.82)"], [1.0, "rgba(15, 20, 35, 0.0)"]]   # low weight -> dark, high -> clear
HEAT = [[0.0, "rgba(255, 150, 0, 0.0)"], [1.0, "rgba(255, 150, 0, 0.9)"]]   # low -> clear, high -> orange
LOOKS = {"veil": VEIL, "heat": HEAT}     # veil suits light, colourful images; heat suits light ink on dark


def patch_upsample(values: np.ndarray, grid: tuple[int, int], patch_size: int) -> np.ndarray:
    """(N,) per-patch values -> (gh·P, gw·P): patch i's value on exactly its P × P pixels."""
    gh, gw = grid
    v = np.asarray(values, dtype=np.float64)
    if v.shape != (gh * gw,):
        raise ValueError(f"{v.shape} values for a {gh}×{gw} grid")
    return np.kron(v.reshape(gh, gw), np.ones((patch_size, patch_size)))


def _rgb(image: np.ndarray) -> np.ndarray:
    a = np.clip(np.asarray(image, dtype=np.float64), 0, 1)
    if a.ndim == 2:
        a = np.repeat(a[..., None], 3, axis=2)
    return (a * 255).round().astype(np.uint8)                       # (h, w, 3)


def _image_trace(image: np.ndarray) -> go.Image:
    return go.Image(z=_rgb(image), hoverinfo="skip")


def _square_axes(fig: go.Figure, row=None, col=None):
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="", row=row, col=col)
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="", autorange="reversed",
                     scaleanchor="x", row=row, col=col)


def _overlay_trace(values, grid, patch_size, zmax, name, showscale=False, look="veil") -> go.Heatmap:
    z = patch_upsample(values, grid, patch_size)
    ids = patch_upsample(np.arange(grid[0] * grid[1]), grid, patch_size).astype(int)
    return go.Heatmap(z=z, customdata=ids, zmin=0.0, zmax=zmax, colorscale=LOOKS[look], showscale=showscale,
                      hovertemplate=_("patch p%{customdata}") + f"<br>{name}: %{{z:.4f}}<extra></extra>",
                      colorbar=dict(title=name, thickness=12))


def plot_image(image: np.ndarray, *, title: str | None = None, height: int = 260,
               signed: bool = False) -> go.Figure:
    """A small picture. signed=True draws a (h, w) array of any sign (a normalised image) with a
    diverging scale and its values on hover; otherwise RGB/grey in [0, 1]."""
    a = np.asarray(image, dtype=np.float64)
    if signed:
        g = a if a.ndim == 2 else a.mean(axis=2)
        lim = float(np.abs(g).max()) or 1.0
        fig = go.Figure(go.Heatmap(z=g, zmin=-lim, zmax=lim, colorscale="RdBu_r", colorbar=dict(thickness=10),
                                   hovertemplate=_("row %{y}, col %{x}<br>value %{z:.3f}") + "<extra></extra>"))
    else:
        fig = go.Figure(_image_trace(a))
    _square_axes(fig)
    return style(fig, title, height)


def plot_patch_grid(image: np.ndarray, grid: tuple[int, int], patch_size: int, *, title: str | None = None,
                    highlight=None, height: int = 420) -> go.Figure:
    """The image with patch borders and each patch's number (p0 top-left, row by row).
    highlight: optional (N,) bool patches drawn with a thick outline."""
    gh, gw = grid
    p = patch_size
    fig = go.Figure(_image_trace(image))
    for r in range(gh + 1):
        fig.add_shape(type="line", x0=-0.5, x1=gw * p - 0.5, y0=r * p - 0.5, y1=r * p - 0.5,
                      line=dict(color="rgba(255,255,255,0.9)", width=1))
    for c in range(gw + 1):
        fig.add_shape(type="line", y0=-0.5, y1=gh * p - 0.5, x0=c * p - 0.5, x1=c * p - 0.5,
                      line=dict(color="rgba(255,255,255,0.9)", width=1))
    for i in range(gh * gw):
        r, c = divmod(i, gw)
        fig.add_annotation(x=c * p + (p - 1) / 2, y=r * p + (p - 1) / 2, text=f"p{i}", showarrow=False,
                           font=dict(size=11, color="white"), bgcolor="rgba(0,0,0,0.45)", borderpad=1)
        if highlight is not None and highlight[i]:
            fig.add_shape(type="rect", x0=c * p - 0.5, x1=(c + 1) * p - 0.5, y0=r * p - 0.5, y1=(r + 1) * p - 0.5,
                          line=dict(color="#ffbf00", width=3))
    _square_axes(fig)
    return style(fig, title, height)


def plot_patch_sequence(patches: np.ndarray, *, height: int = 150, cls: bool = True) -> go.Figure:
    """The sequence the model reads: <cls> (when cls) then p0, p1, .. as little tiles in one row.
    patches: (N, P, P) or (N, P, P, 3) in [0, 1]."""
    a = np.asarray(patches, dtype=np.float64)
    if a.ndim == 3:
        a = np.repeat(a[..., None], 3, axis=3)
    n, p = a.shape[0], a.shape[1]
    first = 1 if cls else 0
    gap = max(1, p // 4)
    strip = np.ones((p, (n + first) * (p + gap) - gap, 3))
    if cls:
        strip[:, :p] = (0.98, 0.75, 0.2)                                # <cls>: a learned vector, no pixels
    for i in range(n):
        x0 = (i + first) * (p + gap)
        strip[:, x0:x0 + p] = np.clip(a[i], 0, 1)
    fig = go.Figure(_image_trace(strip))
    centres = [(p - 1) / 2 + k * (p + gap) for k in range(n + first)]
    labels = (["<cls>"] if cls else []) + [f"p{i}" for i in range(n)]
    step = 1 if n + first <= 40 else 4                                  # 64 one-pixel tiles: every 4th label
    fig.update_xaxes(tickvals=centres[::step], ticktext=labels[::step], tickangle=-90, showgrid=False,
                     tickfont=dict(size=10))
    fig.update_yaxes(showticklabels=False, showgrid=False, autorange="reversed")
    return style(fig, None, height)


def plot_overlay(image: np.ndarray, values: np.ndarray, grid: tuple[int, int], patch_size: int, *,
                 title: str | None = None, name: str | None = None, height: int = 420, look: str = "veil",
                 zmax: float | None = None) -> go.Figure:
    """Attention (or rollout) on each patch, laid over the image. look="veil": attended patches stay
    clear, ignored ones are veiled; "heat": attended patches glow orange. values: (N,); the colour runs
    from 0 to zmax (default: the largest value; pass one zmax to figures shown side by side), hover shows
    the exact value, named `name` (default "weight")."""
    name = name or _("weight")
    v = np.asarray(values, dtype=np.float64)
    top = float(v.max()) if zmax is None else float(zmax)
    fig = go.Figure([_image_trace(image), _overlay_trace(v, grid, patch_size, top or 1.0, name, True, look)])
    _square_axes(fig)
    return style(fig, title, height)


def plot_head_grid(image: np.ndarray, rows: np.ndarray, grid: tuple[int, int], patch_size: int, *,
                   title: str | None = None, name: str | None = None, titles: list[str] | None = None,
                   cell_height: int = 190, look: str = "veil") -> go.Figure:
    """Every layer (rows) × head (columns) at once, on one colour scale (0 to the largest value of any panel)
    with one colour bar. rows: (L, H, N) the attention of one token. titles: one per panel, row by row
    (default labels.head_label, "L0 H1"); name: what the values are (default "weight")."""
    name = name or _("weight")
    L, H = rows.shape[:2]
    top = float(np.max(rows)) or 1.0
    titles = titles or [head_label(layer, h) for layer in range(L) for h in range(H)]
    fig = make_subplots(rows=L, cols=H, horizontal_spacing=0.01, vertical_spacing=0.06 if L > 1 else 0.0,
                        subplot_titles=titles)
    for layer in range(L):
        for h in range(H):
            fig.add_trace(_image_trace(image), row=layer + 1, col=h + 1)
            fig.add_trace(_overlay_trace(rows[layer, h], grid, patch_size, top, name, showscale=layer == h == 0,
                                         look=look), row=layer + 1, col=h + 1)
    fig.update_traces(colorbar=dict(title=dict(text=_("{name},<br>every<br>panel").format(name=name))),
                      selector=dict(type="heatmap"))
    for k in range(1, L * H + 1):
        fig.layout[f"yaxis{'' if k == 1 else k}"].update(scaleanchor=f"x{'' if k == 1 else k}")
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="")
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="", autorange="reversed")
    fig.update_annotations(font=dict(size=12))
    return style(fig, title, cell_height * L + 60)


def plot_probs(probs: np.ndarray, classes: list[str], *, title: str | None = None) -> go.Figure:
    """Horizontal bars of class probabilities, the top class highlighted."""
    p = np.asarray(probs, dtype=np.float64)
    top = int(p.argmax())
    colours = [HEAD_COLOURS[0] if i == top else "#b8c4d6" for i in range(len(p))]
    fig = go.Figure(go.Bar(x=p, y=[str(c) for c in classes], orientation="h", marker_color=colours,
                           text=[f"{v:.1%}" for v in p], textposition="outside",
                           hovertemplate="%{y}: %{x:.4f}<extra></extra>"))
    fig.update_xaxes(range=[0, 1.3], tickformat=".0%", title=_("probability"))
    fig.update_yaxes(autorange="reversed", type="category")      # "0".."9" are names, not numbers
    return style(fig, title, 60 + 32 * len(p))
