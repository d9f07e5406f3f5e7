"""Any figure made ready for a slide: a copy with a title, its axis titles, a colour bar, a caption line under
the title (model, layer/head, text), type sized for a projector, on a 16:9 canvas where it fits; and file names
that say what a file shows."""
import html
import re
import unicodedata

import plotly.graph_objects as go

from . import ticks

WIDTH, HEIGHT = 1600, 900          # layout pixels of a 16:9 slide; the PNG is drawn at 2x
MAX_HEIGHT = 2400                  # a figure too tall for 16:9 keeps its own aspect, up to this
FONT_SCALE = 1.5                   # every font of the page figure, enlarged for a room
BASE_FONT = 20                     # when the figure sets no size (Plotly's default is 12)
TITLE_FONT, CAPTION_FONT = 30, 20
TICK_FONT = 21                     # the house font (14) × FONT_SCALE
TOP = 130                          # title and caption
COLOUR_BAR = 130
CAPTION_CHARS = 150                # the caption line, clipped with "…"
TEXT_CHARS = 70                    # the quoted text inside it
STEM_CHARS = 120
COLOUR_TRACES = ("heatmap", "contour", "histogram2d", "histogram2dcontour")


def clip(text: str, limit: int) -> str:
    """text on one line, cut to `limit` characters with "…"."""
    one = " ".join(str(text).split())
    return one if len(one) <= limit else one[:limit - 1].rstrip() + "…"


class Caption(str):
    """A caption line (a plain str wherever it goes) that also keeps, as .text, the whole text it quotes clipped:
    exports name their files after that text (app_pages/_export.py)."""
    text: str | None = None


def caption_line(*parts, text: str | None = None) -> Caption:
    """("coref_encoder", "L3 H1"), text="The restaurant…" -> 'coref_encoder · L3 H1 · “The restaurant…”'
    (empty parts dropped, the text on one line and clipped; .text holds it whole)."""
    items = [str(p) for p in parts if p not in (None, "")]
    if text is not None and text.strip():
        items.append(f"“{clip(text, TEXT_CHARS)}”")
    line = Caption(clip(" · ".join(items), CAPTION_CHARS))
    line.text = text if text is not None and text.strip() else None
    return line


def file_stem(*parts) -> str:
    """("coref_encoder", "L3 H1", "attention") -> "coref_encoder_L3H1_attention": ASCII letters, digits, "." and
    "-" kept, spaces inside a part dropped, anything else one "_"."""
    cleaned = []
    for p in parts:
        s = re.sub(r"[^A-Za-z0-9.\-]+", "_", re.sub(r"\s+", "", str(p))).strip("_.")
        if s:
            cleaned.append(s)
    return "_".join(cleaned)[:STEM_CHARS].rstrip("_") or "figure"


def slide_size(fig: go.Figure) -> tuple[int, int]:
    """(width, height) in layout pixels: 16:9, unless the figure is too tall for it once its type is enlarged
    (then its own aspect, up to MAX_HEIGHT), or it is one square map (then as wide as the map, its labels and
    its colour bar need, at most 16:9)."""
    height = int(min(MAX_HEIGHT, max(HEIGHT, round((fig.layout.height or 450) * FONT_SCALE * 0.85))))
    if not one_square_map(fig.data):
        return WIDTH, height
    trace = next(t for t in fig.data if t.type == "heatmap")
    left, below = _text_px(trace.y), _text_px(trace.x) * 0.87      # x labels are turned by 60°
    side = height - TOP - below - 90                                 # 90: the x axis title and the margin
    return int(min(WIDTH, max(HEIGHT, left + side + 60 + COLOUR_BAR))), height


def _text_px(labels, font: float = TICK_FONT) -> float:
    """About how wide the longest label is at a font size (the slide's tick font by default; a wide CJK character
    counts twice)."""
    if labels is None or not len(labels):
        return 40.0
    longest = max(_columns(str(t)) for t in labels)
    return longest * font * 0.55 + 10


def square_map_width(fig: go.Figure, height: int, font: float) -> int:
    """The width (layout px) that gives the square map of `fig` (one_square_map) square cells at this height and font
    with its labels and colour bar beside it, no wider: the bar then sits next to the map, not a screen away."""
    trace = next(t for t in fig.data if t.type == "heatmap")
    left, below = _text_px(trace.y, font), _text_px(trace.x, font) * 0.87      # x labels are turned by 60°
    side = max(200, height - 70 - below - 2.5 * font)           # 70: the title; then the x labels and the axis title
    return int(left + 2.5 * font + side + COLOUR_BAR + 2 * font)


def _columns(text: str) -> int:
    """Character cells of a label: a wide CJK character takes two."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def one_square_map(traces) -> bool:
    """One N × N heatmap on the first axes (overlays on the same axes allowed), N > 1."""
    maps = [t for t in traces if _get(t, "type") == "heatmap"]
    if not maps or any((_get(t, "xaxis") or "x", _get(t, "yaxis") or "y") != ("x", "y") for t in maps):
        return False
    shape = _shape(_get(maps[0], "z"))
    return len(shape) == 2 and shape[0] == shape[1] > 1


def _get(trace, key):
    return trace.get(key) if isinstance(trace, dict) else getattr(trace, key, None)


def _scale_fonts(node, inside_font: bool = False):
    """Multiply every font size in a figure's JSON by FONT_SCALE, in place."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "size" and inside_font and isinstance(value, (int, float)):
                node[key] = round(value * FONT_SCALE, 1)
            elif isinstance(value, (dict, list)):
                _scale_fonts(value, inside_font=key.endswith("font"))
    elif isinstance(node, list):
        for item in node:
            _scale_fonts(item, inside_font)


def _show_colour_bar(spec: dict):
    """A colour-mapped figure whose page version hides its colour bar (numbers in the cells) gets it back on
    the first colour-mapped trace whose colours vary."""
    layout = spec["layout"]
    if any(key.startswith("coloraxis") for key in layout):
        for key in layout:
            if key.startswith("coloraxis"):
                layout[key]["showscale"] = True
        return
    mapped = [t for t in spec["data"] if t.get("type") in COLOUR_TRACES]
    if not mapped or any(t.get("showscale", True) for t in mapped):
        return
    if any((t.get("marker") or {}).get("showscale") for t in spec["data"]):   # a bar of its own (a log scale's)
        return
    for t in mapped:
        scale = t.get("colorscale")
        if not (isinstance(scale, list) and len({str(c) for _, c in scale}) == 1):     # one colour: an overlay
            t["showscale"] = True
            return


def _shape(z) -> tuple:
    """The shape of a trace's z: a numpy array, nested lists, or Plotly's packed {"bdata", "shape"} form."""
    if hasattr(z, "shape"):
        return tuple(z.shape)
    if isinstance(z, dict):
        return tuple(int(n) for n in str(z.get("shape", "")).split(",") if n.strip())
    if isinstance(z, (list, tuple)) and z and isinstance(z[0], (list, tuple)):
        return len(z), len(z[0])
    return ()


def _square_cells(spec: dict):
    """One square map keeps square cells (and its colour bar beside it) on its 4:3 canvas."""
    if one_square_map(spec["data"]):
        spec["layout"].setdefault("yaxis", {}).update(scaleanchor="x", constrain="domain")
        spec["layout"].setdefault("xaxis", {}).update(constrain="domain", constraintoward="center")


def slide_figure(fig: go.Figure, *, caption: str, title: str | None = None) -> go.Figure:
    """A copy of fig for a slide: title (the figure's own, else `title`), the caption line under it (escaped:
    it may hold typed text), axis titles kept, a colour bar on colour-mapped figures, fonts × FONT_SCALE,
    size slide_size(fig), white background. fig itself is not changed."""
    spec = fig.to_plotly_json()
    layout = spec.setdefault("layout", {})
    width, height = slide_size(fig)
    caption = clip(caption, int((width - 40) / (CAPTION_FONT * 0.55)))       # one line, whatever the width
    _scale_fonts(spec)
    _show_colour_bar(spec)
    _square_cells(spec)
    own = layout.get("title", {})
    own = own.get("text") if isinstance(own, dict) else own
    heading = own or html.escape(title or "", quote=False)
    font = layout.get("font") or {}
    layout["font"] = {**font, "size": font.get("size") or BASE_FONT}
    layout["title"] = dict(text=heading, x=0.01, xanchor="left", y=0.985, yanchor="top", yref="container",
                           font=dict(size=TITLE_FONT),
                           subtitle=dict(text=html.escape(caption, quote=False),
                                         font=dict(size=CAPTION_FONT, color="#555555")))
    margin = layout.get("margin") or {}
    layout.update(width=width, height=height, paper_bgcolor="white",
                  margin={**margin, "l": max(margin.get("l", 0), 40), "r": max(margin.get("r", 0), 40),
                          "t": max(margin.get("t", 0) * FONT_SCALE, TOP), "b": max(margin.get("b", 0), 40)})
    for key in list(layout):
        if re.fullmatch(r"[xy]axis\d*", key):
            layout[key].setdefault("automargin", True)
            if isinstance(layout[key].get("title"), dict):          # without a standoff Plotly can place a
                layout[key]["title"].setdefault("standoff", 12)     # title over tick labels it re-spaced
    out = go.Figure(spec, skip_invalid=False)
    ticks.fit(out, font=TICK_FONT, again=True)      # every labelled row and column apart at the slide's size
    return out
