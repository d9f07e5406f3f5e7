"""Pictures for ImageGPT: completed images side by side (the given rows above a line), one pixel's attention over
the pixels before it (later pixels hatched: it cannot see them), and the next-pixel distribution over grey levels.
numpy in, Plotly out; images are (S, S) grey values in [0, 1], pixels numbered in raster order."""
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from i18n import _

from .images import _image_trace, _square_axes
from .theme import HEAD_COLOURS, style

FUTURE = "rgba(120, 120, 120, 0.55)"
UNKNOWN = (0.33, 0.45, 0.78)                                          # a pixel not given or not written yet


def with_unknown(grey: np.ndarray, known: np.ndarray) -> np.ndarray:
    """(S, S) grey in [0, 1] and (S, S) bool -> (S, S, 3) RGB, the unknown pixels in blue (no grey level)."""
    rgb = np.repeat(np.asarray(grey, dtype=np.float64)[..., None], 3, axis=2)
    rgb[~known] = UNKNOWN
    return rgb


def plot_completions(images: list[np.ndarray], titles: list[str], given_rows: int, *, height: int = 260) -> go.Figure:
    """Images (S, S) or (S, S, 3) side by side, a dashed line under the `given_rows` rows the model was given."""
    n = len(images)
    fig = make_subplots(rows=1, cols=n, subplot_titles=titles, horizontal_spacing=0.02)
    for k, img in enumerate(images):
        S = img.shape[1]
        fig.add_trace(_image_trace(img), row=1, col=k + 1)
        fig.add_shape(type="line", x0=-0.5, x1=S - 0.5, y0=given_rows - 0.5, y1=given_rows - 0.5,
                      line=dict(color="#ffbf00", width=3, dash="dash"), row=1, col=k + 1)
    for k in range(1, n + 1):
        fig.layout[f"yaxis{'' if k == 1 else k}"].update(scaleanchor=f"x{'' if k == 1 else k}")
    fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="")
    fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, ticks="", autorange="reversed")
    fig.update_annotations(font=dict(size=13))
    fig = style(fig, None, height)
    fig.update_layout(margin=dict(t=70))                              # two-line panel titles
    return fig


def plot_pixel_attention(image: np.ndarray, weights: np.ndarray, pixel: int, *, title: str | None = None,
                         zmax: float | None = None, height: int = 300) -> go.Figure:
    """weights: (N,) attention of the position predicting `pixel` over the pixels (raster order; the start
    token's share left out). Pixels before it glow by weight, `pixel` is outlined, later ones are hatched grey."""
    S = image.shape[0]
    w = np.asarray(weights, dtype=np.float64).reshape(S, S)
    ids = np.arange(S * S).reshape(S, S)
    top = float(w.max()) if zmax is None else float(zmax)
    future = np.where(ids >= pixel, 1.0, np.nan)
    fig = go.Figure([_image_trace(image),
                     go.Heatmap(z=np.where(ids < pixel, w, np.nan), zmin=0, zmax=top or 1.0, customdata=ids,
                                colorscale=[[0, "rgba(255,150,0,0)"], [1, "rgba(255,150,0,0.9)"]],
                                colorbar=dict(title=_("weight"), thickness=12),
                                hovertemplate=_("pixel %{customdata}<br>weight %{z:.4f}") + "<extra></extra>"),
                     go.Heatmap(z=future, zmin=0, zmax=1, colorscale=[[0, FUTURE], [1, FUTURE]], showscale=False,
                                customdata=ids, hovertemplate=_("pixel %{customdata}: not seen yet") +
                                "<extra></extra>")])
    r, c = divmod(pixel, S)
    fig.add_shape(type="rect", x0=c - 0.5, x1=c + 0.5, y0=r - 0.5, y1=r + 0.5, line=dict(color="#2E52E0", width=3))
    _square_axes(fig)
    return style(fig, title, height)


def plot_next_pixel(probs: np.ndarray, chosen: int | None = None, *, title: str | None = None,
                    height: int = 260) -> go.Figure:
    """Bars of p(level) for one pixel, each bar drawn in its own grey; `chosen` (the level taken) highlighted."""
    p = np.asarray(probs, dtype=np.float64)
    L = len(p)
    greys = [f"rgb({int(255 * k / (L - 1))},{int(255 * k / (L - 1))},{int(255 * k / (L - 1))})" for k in range(L)]
    fig = go.Figure(go.Bar(x=list(range(L)), y=p, marker=dict(color=greys, line=dict(
        color=[HEAD_COLOURS[1] if k == chosen else "#555" for k in range(L)],
        width=[4 if k == chosen else 1 for k in range(L)])),
        text=[f"{v:.0%}" for v in p], textposition="outside",
        hovertemplate=_("level %{x}: %{y:.3f}") + "<extra></extra>"))
    fig.update_xaxes(title=_("grey level (0 = black)"), tickmode="linear", dtick=1)
    fig.update_yaxes(title=_("probability"), range=[0, 1.15], tickformat=".0%")
    return style(fig, title, height)
