"""One look for every figure: large type for projectors, one sequential colour scale for weights."""
import re

import plotly.graph_objects as go

_RGB = re.compile(r"rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)")

WEIGHT_SCALE = "Blues"          # attention weights in [0, 1]
DIVERGING_SCALE = "RdBu_r"      # signed values (differences, Q/K/V entries), centred on 0
HEAD_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                "#bcbd22", "#17becf", "#393b79", "#637939"]
# each head colour's lighter partner (Tableau's paired palette), for lines on a dark page: HEAD_COLOURS' dark blue
# drawn at a weight's opacity all but vanishes into dark paper
DARK_HEAD_COLOURS = ["#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7",
                     "#dbdb8d", "#9edae5", "#9c9ede", "#cedb9c"]
FAINTEST_ON_DARK = 0.3          # on a dark page a line of opacity a is drawn at 0.3 + 0.7·a: the faintest still shows
DARK_INK = "#111111"            # text on a light box (a highlighted word), whatever the page's theme
FONT = dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=14)


def style(fig: go.Figure, title: str | None = None, height: int | None = None) -> go.Figure:
    """Apply the house layout (white background, readable fonts, tight margins)."""
    # No named template: copying one costs ~50 ms a figure, and Streamlit applies its own theme anyway.
    fig.update_layout(font=FONT, margin=dict(l=10, r=10, t=50 if title else 20, b=10),
                      paper_bgcolor="white", plot_bgcolor="white",
                      title=dict(text=title, x=0.01) if title else None)
    if height:
        fig.update_layout(height=height)
    return fig


def _rgb(colour) -> list[float] | None:
    """[r, g, b] (0…255) of "#rgb", "#rrggbb", "rgb(…)" or "rgba(…)"; None for no colour, a transparent one (alpha
    below 0.5) or one not spelled so."""
    text = str(colour or "").strip().lower()
    if re.fullmatch(r"#[0-9a-f]{3}", text):
        text = "#" + "".join(c * 2 for c in text[1:])
    if re.fullmatch(r"#[0-9a-f]{6}", text):
        return [int(text[i:i + 2], 16) for i in (1, 3, 5)]
    if (m := _RGB.fullmatch(text)) and (m.group(4) is None or float(m.group(4)) >= 0.5):
        return [float(m.group(i)) for i in (1, 2, 3)]
    return None


def luminance(colour) -> float | None:
    """WCAG 2.x relative luminance (0 black … 1 white) of "#rgb", "#rrggbb", "rgb(…)" or "rgba(…)"; None for no
    colour, a transparent one (alpha below 0.5) or one not spelled so."""
    rgb = _rgb(colour)
    if rgb is None:
        return None
    lin = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def on_dark(fig: go.Figure) -> go.Figure:
    """Lines of a figure for a dark page: each head colour (lines, markers) its lighter partner, and a line trace's
    opacity lifted (FAINTEST_ON_DARK), its order kept. Changes fig in place; returns it."""
    lighter = dict(zip(HEAD_COLOURS, DARK_HEAD_COLOURS))
    for t in fig.data:
        if t.type != "scatter":
            continue
        if isinstance(t.line.color, str) and t.line.color.lower() in lighter:
            t.line.color = lighter[t.line.color.lower()]
        if isinstance(t.marker.color, str) and t.marker.color.lower() in lighter:
            t.marker.color = lighter[t.marker.color.lower()]
        if t.mode == "lines" and t.opacity is not None and t.opacity < 1:
            t.opacity = FAINTEST_ON_DARK + (1 - FAINTEST_ON_DARK) * t.opacity
    return fig


def light(colour) -> bool:
    """Whether a colour is light enough to need dark ink (relative luminance 0.4 or more)."""
    lum = luminance(colour)
    return lum is not None and lum >= 0.4


def dark_grey(colour) -> bool:
    """Whether a colour is a dark grey (an arrow's, a line's ink; not a colour that means something, as red does)."""
    rgb, lum = _rgb(colour), luminance(colour)
    return rgb is not None and max(rgb) - min(rgb) <= 24 and lum < 0.2


def fill_under(fig: go.Figure, x, y) -> str | None:
    """The fill colour of the topmost filled rectangle shape under the point (x, y) in data units (a block of a
    diagram, its container); None where the point is on the paper or not in data units."""
    if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
        return None
    for s in reversed(fig.layout.shapes):
        if (s.type == "rect" and s.fillcolor and s.xref in (None, "x") and s.yref in (None, "y")
                and min(s.x0, s.x1) <= x <= max(s.x0, s.x1) and min(s.y0, s.y1) <= y <= max(s.y0, s.y1)):
            return s.fillcolor
    return None


def _path_points(path: str) -> list[tuple[float, float]]:
    numbers = [float(v) for v in re.findall(r"-?[\d.]+(?:e-?\d+)?", path or "")]
    return list(zip(numbers[::2], numbers[1::2]))


def lines_on_dark(fig: go.Figure, colour: str) -> go.Figure:
    """A diagram's dark grey arrows and paths that cross the (dark) paper drawn in `colour`; those wholly on a light
    block keep their colour, and a label on a light block keeps dark ink (the rest: the caller's ink). Changes fig
    in place; returns it."""
    def on_light(points) -> bool:
        return all(light(fill_under(fig, x, y)) for x, y in points)
    for note in fig.layout.annotations:
        on_block = note.bgcolor is None and note.xref in (None, "x") and light(fill_under(fig, note.x, note.y))
        if on_block:
            note.font.color = DARK_INK
        if note.showarrow is not False and note.axref == "x" and dark_grey(note.arrowcolor) and not on_light(
                [((note.x + note.ax) / 2, (note.y + note.ay) / 2)]):
            note.arrowcolor = colour
    for s in fig.layout.shapes:
        if s.type == "path" and dark_grey(s.line.color) and not on_light(_path_points(s.path)):
            s.line.color = colour
    return fig


def contrast(a: float, b: float) -> float:
    """WCAG contrast ratio of two relative luminances, from 1 to 21."""
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)
