"""The architecture of a shipped model drawn from its own config, in the manner of Figure 1 of Vaswani et al.
2017: input → embedding (+ positions) → N × [attention, feed-forward, each with its residual and LayerNorm
placed before (pre-LN) or after (post-LN) the sublayer] → output head. Every block names the page that teaches
it (an HTML link inside the figure; `architecture_blocks` gives the same list to a page).

Config dicts only: `ModelConfig.to_dict()` (plus "sparse" for the sliding-window encoder) or a ViT/Swin
config (image_size, patch_size, n_classes, window). Plain values in, a Plotly figure out."""
import html
import re

import plotly.graph_objects as go

from i18n import N_, _

from .architecture_columns import (  # noqa: F401 (part of this module's interface)
    ACTIVATIONS,
    PAGES,
    Block,
    Column,
    architecture_blocks,
    columns,
    taught_on,
)
from .grid import layout

# Figure 1 of the paper: the colour of each kind of block.
COLOURS = {"input": "#ffffff", "embed": "#fad4d8", "positions": "#e9e3f5", "attention": "#fce0b4",
           "norm": "#f2f3c1", "ffn": "#c7e8f5", "head": "#dcdff0"}
LINK_COLOUR = "#0b4f9c"
LINE_HEIGHT, PAD, GAP, INNER_GAP, HEADER = 18, 7, 26, 16, 42     # pixels (1 y unit = 1 px)
LEAST_FONT = 14                 # px: fit() tightens the space between blocks before the type gets smaller than this
SQUEEZES = (1.0, 0.8, 0.6, 0.45, 0.35)  # the space between blocks and inside them, tried in turn until it fits

# ---- drawing --------------------------------------------------------------------------------------------------
LANE, EDGE = 5.0, 1.5          # x units (percent of the width): residual lane, inner margin of the container


def _link(text: str, href: str, bold: bool = False) -> str:
    a = (f'<a href="{html.escape(href)}" target="_self" style="color:{LINK_COLOUR}">'
         f"{html.escape(text, quote=False)}</a>")
    return f"<b>{a}</b>" if bold else a


def _box_text(b: Block, pages: dict) -> str:
    lines = [_link(b.label, pages[b.topic], bold=True)]
    lines += [_link(t, pages[topic]) if topic else html.escape(t, quote=False) for t, topic in b.lines]
    return (" · " if b.kind == "norm" else "<br>").join(lines)   # norms fit one line


def _height(b: Block, squeeze: float = 1.0) -> float:
    return 2 * PAD * squeeze + LINE_HEIGHT * (1 if b.kind == "norm" else 1 + len(b.lines))


class _Canvas:
    """Shapes and annotations in data units: x in percent of the width, y in pixels from the bottom."""

    def __init__(self, pages: dict, squeeze: float = 1.0):
        self.pages, self.shapes, self.notes, self.squeeze = pages, [], [], squeeze

    def box(self, b: Block, x0: float, x1: float, y: float) -> float:
        """Draws b with its bottom at y; returns its top."""
        top = y + _height(b, self.squeeze)
        self.shapes.append(dict(type="rect", x0=x0, x1=x1, y0=y, y1=top, fillcolor=COLOURS[b.kind],
                                line=dict(color="#555", width=1.2), layer="below"))
        self.notes.append(dict(x=(x0 + x1) / 2, y=(y + top) / 2, text=_box_text(b, self.pages), showarrow=False,
                               name=b.key, align="center", font=dict(size=14, color="#222"),
                               captureevents=True))          # else the plot's drag layer takes the click
        return top

    def arrow(self, x0, y0, x1, y1, label: str = "", name: str = "", label_y: float | None = None):
        self.notes.append(dict(x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x", ayref="y", text="",
                               showarrow=True, arrowhead=2, arrowsize=1.2, arrowwidth=1.5, arrowcolor="#444"))
        if label:
            self.text((x0 + x1) / 2 + 0.8, (y0 + y1) / 2 if label_y is None else label_y, label, name=name,
                      xanchor="left")

    def line(self, points):
        path = "M " + " L ".join(f"{x},{y}" for x, y in points)
        self.shapes.append(dict(type="path", path=path, line=dict(color="#444", width=1.5)))

    def text(self, x, y, text: str, name: str = "", raw: bool = False, color: str = "#333", **kw):
        """raw: text is markup this module wrote; anything else is escaped."""
        self.notes.append(dict(x=x, y=y, text=text if raw else html.escape(text, quote=False), showarrow=False,
                               name=name, font=dict(size=14, color=color), **kw))


def _draw_column(cv: _Canvas, col: Column, x0: float, x1: float, name: str) -> dict:
    """Draws one stack in [x0, x1] from the bottom. Returns at (key -> (bottom, top)), out (top of the last
    block), exit (above the container), cx and the boxes' x span."""
    left, k = col.lane == "left", cv.squeeze
    gap, inner = GAP * k, INNER_GAP * k
    bx0, bx1 = (x0 + LANE, x1 - EDGE) if left else (x0 + EDGE, x1 - LANE)
    cx, lane_x = (bx0 + bx1) / 2, (x0 + LANE / 2 if left else x1 - LANE / 2)
    at, state = {}, dict(y=8.0 * k, below=None)

    def place(b: Block, bottom: float, label: str = "", label_y: float | None = None):
        if state["below"] is not None:
            cv.arrow(cx, state["below"], cx, bottom, label, f"{name}.shape_in" if label else "", label_y)
        top = cv.box(b, bx0, bx1, bottom)
        at[b.key] = (bottom, top)
        state.update(y=top, below=top)

    for i, b in enumerate(col.before):
        place(b, state["y"] + (gap if i else 0))
    bottom = state["y"] + gap                            # the container; the shape written below its edge
    for i, b in enumerate(col.layer):
        place(b, bottom + 14 * k if i == 0 else state["y"] + inner, col.shape_in if i == 0 else "",
              (state["y"] + bottom) / 2)
    top = state["y"] + 8 * k + HEADER
    cv.shapes.insert(0, dict(type="rect", x0=x0, x1=x1, y0=bottom, y1=top, fillcolor="#f3f3f3",
                             line=dict(color="#999", width=1.5), layer="below"))
    cv.text(x0 + 1 if left else x1 - 1, top - 4, col.header, name=f"{name}.header", raw=True, color="#111",
            xanchor="left" if left else "right", yanchor="top", align="left" if left else "right")
    for start, add in col.units:                         # residual: around the sublayer into its Add
        branch = at[col.layer[start].key][0] - (inner / 2 if start else 7 * k)
        add_y = sum(at[col.layer[add].key]) / 2
        cv.line([(cx, branch), (lane_x, branch), (lane_x, add_y)])
        cv.arrow(lane_x, add_y, bx0 if left else bx1, add_y)
    for i, b in enumerate(col.after):
        place(b, (top + gap * 0.7) if i == 0 else state["y"] + gap)
    return dict(at=at, out=state["below"], exit=max(state["y"], top), cx=cx, bx=(bx0, bx1))


def _zoomed(cv: _Canvas, k: float) -> None:
    """Every height and type size of the drawing ×k (y is in pixels; x, in percent of the width, stays)."""
    for s in cv.shapes:
        for key in ("y0", "y1"):
            if key in s:
                s[key] *= k
        if s["type"] == "path":
            s["path"] = re.sub(r"(-?[\d.]+),(-?[\d.]+)", lambda m: f"{m[1]},{float(m[2]) * k:g}", s["path"])
    for n in cv.notes:
        for key in ("y", "ay"):
            if key in n and n[key] is not None:
                n[key] *= k
        if "font" in n:
            n["font"] = {**n["font"], "size": n["font"]["size"] * k}


def _drawing(cols: list[Column], pages: dict, squeeze: float, legend: bool) -> tuple[_Canvas, float]:
    """The stacks drawn with the space between and inside blocks ×squeeze, a single stack's legend beside it
    (legend); the canvas and its height (px)."""
    cv, k = _Canvas(pages, squeeze), squeeze
    spans = ([(12.0, 70.0)] if legend else [(3.0, 97.0)]) if len(cols) == 1 else [(1.0, 43.0), (57.0, 99.0)]
    drawn = [_draw_column(cv, col, x0, x1, f"col{i}") for i, (col, (x0, x1)) in enumerate(zip(cols, spans))]
    last = drawn[-1]                                     # the stack with the output head
    cv.arrow(last["cx"], last["out"], last["cx"], last["out"] + max(LINE_HEIGHT, 36 * k), cols[-1].shape_out,
             "shape_out")
    top = max(d["exit"] for d in drawn) + max(LINE_HEIGHT + 4, 44 * k)
    if len(cols) == 2:                                   # the encoder's output: K and V of every cross-attention
        enc, dec = drawn
        cross_y, y_m = sum(dec["at"]["dec.cross"]) / 2, enc["exit"] + 16 * k
        cv.line([(enc["cx"], enc["out"]), (enc["cx"], y_m), (50, y_m), (50, cross_y)])
        cv.arrow(50, cross_y, dec["bx"][0], cross_y)
        cv.text(49, y_m + 3, _("encoder output {shape} → K, V").format(shape=cols[0].shape_out), name="memory",
                xanchor="right", yanchor="bottom")
    elif legend:
        cv.text(73, top - 10, _(LEGEND), name="legend", raw=True, xanchor="left", yanchor="top", align="left")
    return cv, top


def plot_architecture(config: dict, *, title: str | None = None, links: dict | None = None,
                      zoom: float = 1.0, fit: int | None = None, legend: bool = True) -> go.Figure:
    """The model of `config` as blocks and arrows, every block's name a link to the page that teaches it.

    config: ModelConfig.to_dict() (+ "sparse") or a ViT/Swin config. links: topic -> page path, over PAGES.
    zoom: the type and every height ×zoom (presenting); fit: a height (px) the figure must not exceed: the space
    between blocks is tightened (SQUEEZES) until the type can stay at least LEAST_FONT px, then the zoom lowered
    until it fits (a screen's first view). legend: a single stack's "How to read it" beside it (False: the stack
    takes the width, and the page writes LEGEND where it fits). A config this module does not know gives a figure
    saying so.
    Text is HTML-escaped (title included)."""
    pages = {**PAGES, **(links or {})}
    title = html.escape(title, quote=False) if title else None
    cols = columns(config)
    axes = dict(xaxis=dict(visible=False, range=[0, 100], fixedrange=True))
    if not cols:
        keys = ", ".join(sorted(map(str, config or {})))
        cv = _Canvas(pages)
        cv.text(50, 50, _("Not drawn for this architecture (config keys: {keys}).").format(keys=keys or _("none")),
                name="not_drawn")
        return go.Figure(layout=layout(title, 140, annotations=cv.notes, **axes,
                                       yaxis=dict(visible=False, range=[0, 100], fixedrange=True)))
    room = None if fit is None else fit - (50 if title else 10)
    for squeeze in SQUEEZES if fit is not None else (1.0,):
        cv, top = _drawing(cols, pages, squeeze, legend)
        if room is None or min(zoom, room / top) * 14 >= min(LEAST_FONT, zoom * 14):
            break
    if room is not None:
        zoom = min(zoom, room / top)
    if zoom != 1.0:
        _zoomed(cv, zoom)
        top *= zoom
    return go.Figure(layout=layout(title, int(top) + (50 if title else 10), shapes=cv.shapes, annotations=cv.notes,
                                   dragmode=False, margin=dict(l=10, r=10, t=50 if title else 10, b=0), **axes,
                                   yaxis=dict(visible=False, range=[0, top], fixedrange=True)))

LEGEND = N_("<b>How to read it</b><br>Each blue name opens<br>the page that teaches it.<br><br>"
            "T: tokens in the input<br>h heads, each of size<br>d_k = d_model / h<br><br>"
            "N ×: the layer repeats N<br>times, each copy with<br>its own weights")
