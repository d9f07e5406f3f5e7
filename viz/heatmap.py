"""A labelled heatmap with exact values on hover: the building block of most attention figures."""
import html

import numpy as np
import plotly.graph_objects as go

from i18n import _

from . import ticks
from .theme import FONT, WEIGHT_SCALE, style


def safe_labels(labels) -> list[str]:
    """Token strings made safe and distinct for Plotly axes: escaped (<b> shows literally) and numbered by
    position ("it ·8": the only meaning of "·N"), so repeated tokens keep their own row."""
    return [f"{html.escape(str(t), quote=False)} ·{i}" for i, t in enumerate(labels)]


def name_labels(names) -> list[str]:
    """Names that are distinct already (heads, layers), escaped, with no position: "L0 H0", not "L0 H0 ·0"."""
    labels = [html.escape(str(t), quote=False) for t in names]
    if len(set(labels)) != len(labels):
        raise ValueError(f"row or column names repeat: {labels}")
    return labels


def plot_heatmap(matrix: np.ndarray, *, x_labels=None, y_labels=None, title: str | None = None,
                 zmin: float | None = 0.0, zmax: float | None = 1.0, colorscale: str = WEIGHT_SCALE,
                 x_title: str | None = None, y_title: str | None = None, value_name: str | None = None,
                 height: int | None = None, decimals: int = 4, y_names: bool = False) -> go.Figure:
    """matrix: (rows, cols). Hover shows row label, column label and the value to `decimals`. The titles default
    to "key", "query" and "weight" in the current language. Labels are tokens, numbered by position; y_names:
    the rows are named (heads, layers) and keep their names as they are."""
    x_title = _("key") if x_title is None else x_title
    y_title = _("query") if y_title is None else y_title
    value_name = _("weight") if value_name is None else value_name
    m = np.asarray(matrix, dtype=np.float64)
    xs = safe_labels(x_labels) if x_labels is not None else list(range(m.shape[1]))
    ys = (list(range(m.shape[0])) if y_labels is None else name_labels(y_labels) if y_names
          else safe_labels(y_labels))
    fig = go.Figure(go.Heatmap(
        z=m, x=xs, y=ys, zmin=zmin, zmax=zmax, colorscale=colorscale,
        hovertemplate=f"{y_title}: %{{y}}<br>{x_title}: %{{x}}<br>{value_name}: %{{z:.{decimals}f}}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", title=y_title, **(ticks.every_label(ys) if y_labels is not None else {}))
    fig.update_xaxes(title=x_title, **(ticks.every_label(xs) if x_labels is not None else {}))
    style(fig, title, height or max(260, min(900, 28 * m.shape[0] + 140)))
    ticks.fit(fig, font=FONT["size"], width=ticks.PAGE_WIDTH)
    return fig
