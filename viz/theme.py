"""One look for every figure: large type for projectors, one sequential colour scale for weights."""
import re

import plotly.graph_objects as go

_RGB = re.compile(r"rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)")

WEIGHT_SCALE = "Blues"          # attention weights in [0, 1]
DIVERGING_SCALE = "RdBu_r"      # signed values (differences, Q/K/V entries), centred on 0
HEAD_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                "#bcbd22", "#17becf", "#393b79", "#637939"]
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


def luminance(colour) -> float | None:
    """WCAG 2.x relative luminance (0 black … 1 white) of "#rgb", "#rrggbb", "rgb(…)" or "rgba(…)"; None for no
    colour, a transparent one (alpha below 0.5) or one not spelled so."""
    text = str(colour or "").strip().lower()
    if re.fullmatch(r"#[0-9a-f]{3}", text):
        text = "#" + "".join(c * 2 for c in text[1:])
    if re.fullmatch(r"#[0-9a-f]{6}", text):
        rgb = [int(text[i:i + 2], 16) for i in (1, 3, 5)]
    elif (m := _RGB.fullmatch(text)) and (m.group(4) is None or float(m.group(4)) >= 0.5):
        rgb = [float(m.group(i)) for i in (1, 2, 3)]
    else:
        return None
    lin = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: float, b: float) -> float:
    """WCAG contrast ratio of two relative luminances, from 1 to 21."""
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)
