"""All heads at once as ONE colormapped PNG (layers × heads small maps), and one head zoomed in.

The grid sends the browser pixels, not numbers: a palette PNG (one byte per pixel) at the size it is
shown, so 12 × 12 heads at 128 tokens weigh well under a megabyte (BertViz sends ~100 MB of JSON).
The zoom is a Plotly heatmap at full resolution with exact values on hover.
"""
import base64
import functools
import io
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from PIL import Image
from plotly.colors import get_colorscale, sample_colorscale

from i18n import _
from labels import head_label, head_only, layer_label

from . import ticks
from .heatmap import safe_labels
from .theme import FONT, WEIGHT_SCALE
from .unchecked import figure

LOG_FLOOR = 1e-4          # the log colour scale spans [1e-4, 1]; smaller weights get the lowest colour
GAP_INDEX = 255           # palette slot of the white gaps between maps
ZOOM_WIDTH = 640          # px: the zoom's width on a page beside the grid (a half of a wide page)
PICKED_COLOUR = "#d62728"
GRID_SIDE_PX = 720        # the longer side of the grid image, in pixels (what a laptop shows)
PLAIN = pio.templates["none"].to_plotly_json()     # Plotly's "none" template, spelled out for unchecked figures


def layout(title: str | None = None, height: int | None = None, **extra) -> dict:
    """The house look (theme.style: white, readable fonts, tight margins) as one layout dict, passed to
    go.Figure at construction: ~0.5 ms instead of ~15 ms for update_layout with a named template."""
    out = dict(template=PLAIN, font=FONT, paper_bgcolor="white", plot_bgcolor="white",
               margin=dict(l=10, r=10, t=50 if title else 20, b=10), height=height,
               title=dict(text=title, x=0.01) if title else None)
    return {**out, **extra}


def stops(colorscale: str) -> list:
    """A named Plotly colour scale as [[position, colour], ...] (Plotly.js reads some names differently)."""
    return [list(stop) for stop in _stops(colorscale)]


@functools.lru_cache(maxsize=16)
def _stops(colorscale: str) -> tuple:
    return tuple(tuple(stop) for stop in get_colorscale(colorscale))


@functools.lru_cache(maxsize=16)
def lut(colorscale: str = WEIGHT_SCALE) -> np.ndarray:
    """(256, 3) uint8 palette, read-only: 255 colours of the scale from weight 0 to 1, then white for gaps."""
    rgb = sample_colorscale(colorscale, list(np.linspace(0, 1, 255)), colortype="tuple")
    pal = np.array([[round(c * 255) for c in col] for col in rgb] + [[255, 255, 255]], dtype=np.uint8)
    pal.flags.writeable = False
    return pal


def to_unit(w: np.ndarray, log: bool = False) -> np.ndarray:
    """Weights in [0, 1] -> position on the colour scale in [0, 1] (log10 from LOG_FLOOR to 1 when log)."""
    w = np.clip(np.asarray(w, dtype=np.float32), 0.0, 1.0)
    if not log:
        return w
    # in float64: float32 log10 differs in its last bit between CPUs' vector units, enough to move a weight that
    # sits exactly between two palette colours (a decade tick) to the other one
    unit = (np.log10(np.maximum(w.astype(np.float64), LOG_FLOOR)) - np.log10(LOG_FLOOR)) / -np.log10(LOG_FLOOR)
    return unit.astype(np.float32)


def palette_index(w: np.ndarray, log: bool = False) -> np.ndarray:
    """Weights -> uint8 palette indices 0..254 (rounded)."""
    return np.rint(to_unit(w, log) * 254).astype(np.uint8)


def resample(matrix: np.ndarray, side: int) -> np.ndarray:
    """(N, N) -> (side, side) float32: box-averaged when shrinking, pixel-repeated when side = r·N."""
    n = matrix.shape[0]
    if side == n:
        return matrix.astype(np.float32)
    if side % n == 0:
        r = side // n
        return np.repeat(np.repeat(matrix.astype(np.float32), r, 0), r, 1)
    img = Image.fromarray(np.ascontiguousarray(matrix, dtype=np.float32), mode="F")
    return np.asarray(img.resize((side, side), Image.Resampling.BOX), dtype=np.float32)


def cell_size(n: int, layers: int, heads: int, side_px: int = GRID_SIDE_PX) -> int:
    """Pixels per map: what fits `side_px`, never more than N (a whole multiple of N when N is small)."""
    target = max(16, side_px // max(layers, heads))
    return n if n == target else (n * max(1, target // n) if n < target else target)


@dataclass
class GridImage:
    """png: palette PNG bytes; cell: pixels per map side; gap: pixels between maps; width, height."""
    png: bytes
    cell: int
    gap: int
    width: int
    height: int

    @property
    def src(self) -> str:
        """The PNG as a data: URL (what the figure's image trace and a page's inline image show)."""
        return "data:image/png;base64," + base64.b64encode(self.png).decode()


def grid_image(weights: np.ndarray, *, log: bool = False, cell: int | None = None, gap: int = 3,
               colorscale: str = WEIGHT_SCALE) -> GridImage:
    """weights (L, H, N, N) -> one palette PNG, layer l in row l, head h in column h."""
    L, H, n, _ = weights.shape
    cell = cell or cell_size(n, L, H)
    width, height = H * cell + (H - 1) * gap, L * cell + (L - 1) * gap
    canvas = np.full((height, width), GAP_INDEX, dtype=np.uint8)
    for layer in range(L):
        for head in range(H):
            y, x = layer * (cell + gap), head * (cell + gap)
            canvas[y:y + cell, x:x + cell] = palette_index(resample(weights[layer, head], cell), log)
    img = Image.fromarray(canvas, mode="P")
    img.putpalette(lut(colorscale).tobytes())
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=1)   # 10x faster than 6, ~10% larger
    return GridImage(buf.getvalue(), cell, gap, width, height)


def log_ticks() -> dict:
    """Colour-bar ticks for a log colour scale drawn on [0, 1] (to_unit's positions): one per decade, labelled by
    the weight (1e-4, 1e-3, 0.01, 0.1, 1)."""
    decades = round(-np.log10(LOG_FLOOR))
    weights = [10.0 ** (k - decades) for k in range(decades + 1)]
    return dict(tickvals=[k / decades for k in range(decades + 1)], ticktext=[f"{w:g}" for w in weights])


def _colorbar_trace(log: bool, colorscale: str, **colorbar) -> dict:
    """An invisible trace that only draws a colour bar (log: on to_unit's scale, ticks at each decade)."""
    ticks = log_ticks() if log else {}
    return dict(type="scatter", x=[None], y=[None], mode="markers", hoverinfo="skip", showlegend=False,
                marker=dict(colorscale=stops(colorscale), cmin=0, cmax=1, color=[0], showscale=True,
                            colorbar=dict(title=dict(text=_("weight (log)") if log else _("weight"), side="right"),
                                          **(colorbar or dict(orientation="h", y=-0.02, yanchor="top", len=0.8,
                                                              thickness=12)), **ticks)))


def plot_grid(weights: np.ndarray, *, log: bool = False, picked: tuple[int, int] | None = None,
              cell_text: list[list[str]] | None = None, title: str | None = None,
              colorscale: str = WEIGHT_SCALE) -> tuple[go.Figure, GridImage]:
    """weights (L, H, N, N) -> (figure with the grid PNG and one hover/click target per map, the image).

    cell_text[l][h]: extra hover text per map (statistics, labels). picked: (layer, head) outlined.
    Click targets carry customdata [layer, head].
    """
    L, H = weights.shape[:2]
    g = grid_image(weights, log=log, colorscale=colorscale)
    src = g.src
    step = g.cell + g.gap
    centres = (np.arange(max(L, H)) * step + g.cell / 2)
    layer_idx, head_idx = np.divmod(np.arange(L * H), H)
    text = [head_label(lay, hd) + (f"<br>{cell_text[lay][hd]}" if cell_text else "")
            for lay, hd in zip(layer_idx, head_idx)]
    shapes = []
    if picked is not None:
        y, x = picked[0] * step, picked[1] * step
        shapes.append(dict(type="rect", x0=x - 1.5, y0=y - 1.5, x1=x + g.cell + 0.5, y1=y + g.cell + 0.5,
                           line=dict(color="#d62728", width=3)))
    fig = figure([
        dict(type="image", source=src, x0=0, y0=0, dx=1, dy=1, hoverinfo="skip"),
        dict(type="scatter", x=centres[head_idx], y=centres[layer_idx], mode="markers", text=text,
                   customdata=np.stack([layer_idx, head_idx], 1).tolist(), hovertemplate="%{text}<extra></extra>",
                   marker=dict(symbol="square", size=max(8, min(60, g.cell * 0.8)), color="rgba(0,0,0,0)"),
                   showlegend=False, name=_("maps")),
        _colorbar_trace(log, colorscale)],
        layout=layout(title, min(600, g.height + 130), shapes=shapes, dragmode=False, clickmode="event+select",
                      margin=dict(l=10, r=10, t=60 if title else 40, b=10),
                      xaxis=dict(range=[-2, g.width + 1], tickvals=centres[:H], side="top", showgrid=False,
                                 zeroline=False, ticktext=[head_only(h) for h in range(H)]),
                      yaxis=dict(range=[g.height + 1, -2], tickvals=centres[:L], showgrid=False, zeroline=False,
                                 ticktext=[layer_label(lay) for lay in range(L)], scaleanchor="x")))
    return fig, g


def log_colorscale(colorscale: str = WEIGHT_SCALE, stops: int = 33) -> list:
    """A colour scale over linear weights [0, 1] that colours by log10(weight) from LOG_FLOOR, so the
    data (and hover) stay the exact weights. Piecewise linear between log-spaced stops."""
    return [list(stop) for stop in _log_stops(colorscale, stops)]


@functools.lru_cache(maxsize=16)
def _log_stops(colorscale: str, stops: int) -> tuple:
    pos = np.concatenate([[0.0], np.logspace(np.log10(LOG_FLOOR), 0, stops)])
    cols = sample_colorscale(colorscale, list(to_unit(pos, log=True).astype(float)))
    return tuple((float(p), c) for p, c in zip(pos, cols))


def hover(decimals: int) -> str:
    """The hover of a weights heatmap: query, key and the weight to `decimals`."""
    query, key, weight = _("query"), _("key"), _("weight")
    return f"{query}: %{{y}}<br>{key}: %{{x}}<br>{weight}: %{{z:.{decimals}f}}<extra></extra>"


def plot_zoom(matrix: np.ndarray, *, q_labels, k_labels, log: bool = False, title: str | None = None,
              colorscale: str = WEIGHT_SCALE, decimals: int = 6, picked: int | None = None) -> go.Figure:
    """One head at full resolution. matrix (Nq, Nk) weights, sent as float32; colour fixed to [0, 1]
    (log: coloured by log10 weight, hover still the exact weight). Every row and column labelled (ticks.every_label);
    picked: the index of a token (a row, and when Nq = Nk its column) outlined, its labels bold."""
    m = np.asarray(matrix, dtype=np.float32)
    n = m.shape[0]
    ys, xs = safe_labels(q_labels), safe_labels(k_labels)
    # log: the heatmap's own bar would show the weights linearly; a bar on the log scale, ticked by decade, instead
    bar = [_colorbar_trace(True, colorscale, thickness=14)] if log else []
    outline = {"shapes": shapes} if (shapes := picked_outline(m.shape, picked)) else {}
    fig = figure([dict(
        type="heatmap", z=m, x=xs, y=ys, zmin=0.0, zmax=1.0,
        colorscale=log_colorscale(colorscale) if log else stops(colorscale), showscale=not log,
        colorbar=dict(title=dict(text=_("weight")), thickness=14), hovertemplate=hover(decimals))] + bar,
        layout(title, max(360, min(900, 22 * n + 160)), **outline,
               yaxis=dict(autorange="reversed", title=dict(text=_("query (attends from)")),
                          **ticks.every_label(ys, picked=picked)),
               xaxis=dict(title=dict(text=_("key (attended to)")),
                          **ticks.every_label(xs, picked=picked if m.shape[0] == m.shape[1] else None))))
    ticks.fit(fig, font=FONT["size"], width=ZOOM_WIDTH)
    return fig


def picked_outline(shape: tuple[int, int], picked: int | None) -> list[dict]:
    """Shapes outlining row `picked` of a (rows, cols) map on category axes, and its column when the map is square
    (a token's attention from and to it); none when picked is None or off the map."""
    rows, cols = shape
    if picked is None or not 0 <= picked < rows:
        return []
    line = dict(color=PICKED_COLOUR, width=3)
    out = [dict(type="rect", x0=-0.5, x1=cols - 0.5, y0=picked - 0.5, y1=picked + 0.5, line=line)]
    if rows == cols:
        out.append(dict(type="rect", x0=picked - 0.5, x1=picked + 0.5, y0=-0.5, y1=rows - 0.5, line=line))
    return out
