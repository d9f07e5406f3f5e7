"""Tick labels on every row and column of a map. Plotly thins category ticks to what it guesses fits, so a map of up
to EVERY_MAX tokens lists each one (tickmode "array"); a long token is shortened with "…" (the hover keeps the
whole text); fit() turns the column labels upright or vertical and shrinks the tick font with the count, so that
neighbouring labels never overlap at the size the figure is drawn."""
import html
import math
import re
import unicodedata
from dataclasses import dataclass

import plotly.graph_objects as go

EVERY_MAX = 64            # up to this many rows (or columns) every one is labelled; beyond, every k-th
SHORT = 12                # characters of a token kept whole; a longer one is cut to SHORT - 1 and "…"
LINE = 1.25               # a label's box across the text, per px of font (ascent, descent, a little air)
CHAR = 0.6                # a Latin character's width per px of font (a wide CJK character counts twice)
MIN_FONT = 6.0            # px: the smallest tick font fit() gives
PAGE_WIDTH = 700          # px: the width a figure is fitted to when its page's width is not known (a laptop's column)
MARK = {"ticks": "fitted"}          # layout.meta of a figure fit() labelled: refit it when it is drawn larger
BAR_PX = 90               # a colour bar and its tick labels, beside a map
POSITION = re.compile(r"( ·\d+)$")          # the " ·N" of a token's label: its position in the text


def columns(text: str) -> int:
    """Character cells of a label as drawn: a wide CJK character takes two; markup (<b>, entities) takes none."""
    plain = html.unescape(re.sub(r"<[^>]+>", "", str(text)))
    if plain.isascii():
        return len(plain)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in plain)


def shorten(label: str, limit: int = SHORT) -> str:
    """An escaped label cut to `limit` characters of its token with "…", its " ·N" position kept:
    "sandwiches-and-chips ·9" -> "sandwiches-… ·9". Entities stay whole ("&lt;" is one character)."""
    tail = POSITION.search(label)
    tail = tail.group(1) if tail else ""
    token = html.unescape(label[:len(label) - len(tail)])
    token = token.strip() or token                     # a piece's leading space is not seen
    if len(token) > limit:
        token = token[:limit - 1] + "…"
    return html.escape(token, quote=False) + tail


def every_label(values, *, picked: int | None = None) -> dict:
    """Axis settings that label every category of `values` (the axis's own values: escaped token labels, or
    positions when the axis is numeric, with `text`), shortened; beyond EVERY_MAX values, every k-th. picked: the
    index of a value drawn bold."""
    values = list(values)
    step = max(1, math.ceil(len(values) / EVERY_MAX))
    shown = range(0, len(values), step)
    text = [shorten(str(values[i])) for i in shown]
    if picked is not None and picked % step == 0:
        text[picked // step] = f"<b>{text[picked // step]}</b>"
    return dict(tickmode="array", tickvals=[values[i] for i in shown], ticktext=text)


def numbered_every_label(labels, *, picked: int | None = None) -> dict:
    """every_label for a numeric axis (positions 0…n-1) whose ticks show the escaped `labels`."""
    settings = every_label(labels, picked=picked)
    index = {v: i for i, v in enumerate(labels)}
    return {**settings, "tickvals": [index[v] for v in settings["tickvals"]]}


def _longest(text) -> int:
    return max((columns(t) for t in text or ()), default=0)


def _colour_bar(fig: go.Figure) -> bool:
    """Whether a colour bar stands beside the plot: a heatmap that shows its scale, or a trace's marker bar."""
    for t in fig.data:
        if t.type == "heatmap" and t.showscale is not False:
            return True
        if t.type == "scatter" and t.marker is not None and t.marker.showscale:
            return True
    return False


def _x_across(longest: int, font: float, upright: bool) -> float:
    """px the column labels take below the plot: one line upright, the longest label turned vertical."""
    return LINE * font if upright else longest * CHAR * font + 8


@dataclass(frozen=True)
class Fitted:
    """What fit() settled on: the tick font (px) and the plot area's width and height (px, about; the width is
    infinite when neither the figure nor the caller gives one)."""
    font: float
    plot_w: float
    plot_h: float


def fit(fig: go.Figure, *, font: float, width: float | None = None, again: bool = False) -> Fitted:
    """Shrink the tick font of the first axes' labelled categories (every_label) until neighbours cannot overlap at
    the figure's height and width (layout.width, else `width`; None: as wide as the map needs), never above `font`
    (px); column labels stay upright when each fits its column, else turn vertical. A square map (scaleanchor)
    counts its side; maps side by side (subplots labelled alike) share the width and get the same font, their row
    labels counted once where they share one query axis. The figure is marked fitted; again: refit a figure at
    another size (a page presenting, a slide), only its ticks if it was fitted before, else only the plot area is
    measured. Changes fig in place; returns the font and the plot area it
    leaves (of one map)."""
    mine = not again or fig.layout.meta == MARK
    xa, ya = fig.layout.xaxis, fig.layout.yaxis
    labelled = [fig.layout[k] for k in fig.layout
                if mine and re.fullmatch(r"[xy]axis\d*", k) and fig.layout[k].tickmode == "array"]
    xs = list(xa.ticktext or ()) if xa in labelled else []
    ys = list(ya.ticktext or ()) if ya in labelled else []
    panels = max(1, sum(1 for axis in labelled if axis.plotly_name.startswith("x") and not axis.overlaying))
    beside = max(1, sum(1 for axis in labelled if axis.plotly_name.startswith("y") and not axis.overlaying
                        and axis.showticklabels is not False))       # maps sharing one query axis label it once
    margin = fig.layout.margin
    height = (fig.layout.height or 450) - (margin.t or 0) - (margin.b or 0)
    wide = fig.layout.width or width
    across = (wide - (margin.l or 0) - (margin.r or 0) - (BAR_PX + 2 * font if _colour_bar(fig) else 0)
              if wide else math.inf)
    titles = (LINE * font if xa.title.text else 0, LINE * font if ya.title.text else 0)
    size, upright = font, True
    for _ in range(4):                          # the labels' extent and the font depend on each other; 4 settle it
        plot_h = height - _x_across(_longest(xs), size, upright) - titles[0]
        plot_w = (across - min(panels, beside) * (_longest(ys) * CHAR * size + 8 + titles[1])) / panels
        if ya.scaleanchor == "x":
            plot_h = plot_w = min(plot_h, plot_w)
        pitch_y = plot_h / max(1, len(ys))
        pitch_x = plot_w / max(1, len(xs))
        upright = not xs or _longest(xs) * CHAR * font <= pitch_x
        fits_x = font if upright else pitch_x / LINE
        size = max(MIN_FONT, min(font, pitch_y / LINE if ys else font, fits_x if xs else font))
    size = round(size, 1)
    for axis in labelled:
        turn = {"tickangle": 0 if upright else -90} if axis.plotly_name.startswith("x") else {}
        axis.update(tickfont_size=size, **turn)
    if labelled:
        fig.layout.meta = MARK
    return Fitted(size, plot_w, plot_h)


def square_width(fig: go.Figure, font: float) -> int:
    """The width (px) that gives a fitted square map square cells at its height with its labels, axis titles and
    colour bar beside it, no wider (the bar then sits next to the map, not a screen away) unless its title needs
    more. font: the figure's type."""
    xa, ya = fig.layout.xaxis, fig.layout.yaxis
    size = ya.tickfont.size or font
    margin = fig.layout.margin
    heat = next((t for t in fig.data if t.type == "heatmap"), fig.data[0])
    xs = xa.ticktext if xa.tickmode == "array" else [str(v) for v in getattr(heat, "x", None) or ()]
    ys = ya.ticktext if ya.tickmode == "array" else [str(v) for v in getattr(heat, "y", None) or ()]
    below = _x_across(_longest(xs), xa.tickfont.size or font, xa.tickangle in (None, 0)) + LINE * font
    side = max(200, (fig.layout.height or 450) - (margin.t or 0) - (margin.b or 0) - below)
    left = _longest(ys) * CHAR * size + 8 + LINE * font
    title = columns(fig.layout.title.text or "") * CHAR * (fig.layout.title.font.size or font) + 20
    return int(max(title, (margin.l or 0) + left + side + BAR_PX + 2 * font + (margin.r or 0)))
