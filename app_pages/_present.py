"""Presentation mode, for a projector: a switch in the URL (`present=…`), light or dark. The sidebar and header
are hidden, type is about 1.6× larger, the page's main figure comes first at full width and square maps fill the
height of a 1280 × 720 screen, the controls follow, compact; the switch itself tops the page. Off, pages look as
usual.

A page takes a place for its main figure with `slot()` right under its title, and its main figure goes there:
    _present.slot()                         # presenting: a container at the top of the page, kept for this run
    ...controls...
    _export.chart(fig, main=True, ...)      # presenting: into that place, full width; otherwise where it stands
    with _present.main() or st.container(): # a main figure of several charts (two masks side by side)
        ...
The place belongs to the script run that took it (a thread-local: each run of a session has its own thread), and
only the first main figure of a run takes it: on a tabbed page, that of the open tab.
"""
import threading

import numpy as np
import streamlit as st

import i18n
from app_pages._url import BIND, KEEP, stale_link
from i18n import N_, _
from viz import theme, ticks
from viz.slide import one_square_map

KEY = "present"
MAIN_KEY = "present_main"      # the main figure's place: its element carries the class st-key-present_main
MODES = (N_("Off"), N_("Light"), N_("Dark"))
SCALE = 1.6                     # type size in presentation mode, against the usual
MAP_HEIGHT = 590                # px: a square map fills a 1280 × 720 screen's height below a short title
PAGE_WIDTH = 1240               # px: a figure at full width on a 1280-px screen
CELL_FONT = 16                  # px: the least size of a number written in a map's cell
NUMBER_LINE = 1.05              # a row of digits needs this many px per px of font (no descenders)
DARK = {"paper": "#0e1117", "ink": "#fafafa", "grid": "#31333f", "field": "#262730", "off": "#6b6e7d",
        "line": "#b8bcc8"}

PHONE_WIDTH = 640               # px: a screen this narrow or narrower is a phone's (Streamlit stacks columns there)
MODEBAR_PX = 30                 # px: the strip above a figure that holds Plotly's modebar on a phone
PHONE_CSS = """<style>
@media (max-width: %(phone)dpx) {
  [data-testid="stElementContainer"]:has(> [data-testid="stPlotlyChart"]) { padding-top: %(bar)dpx; }
  [data-testid="stPlotlyChart"] .modebar-container { top: -%(bar)dpx !important; }
}
</style>""" % {"phone": PHONE_WIDTH, "bar": MODEBAR_PX}
_CSS = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"],
[data-testid="stSidebarNav"], [data-testid="stExpandSidebarButton"] { display: none !important; }
html { font-size: %(root)dpx; }
[data-testid="stMainBlockContainer"] { padding: 0.4rem 1.2rem 2rem 1.2rem; max-width: 100%%; }
h1 { font-size: 1.5rem !important; padding: 0 !important; }
h2, h3 { font-size: 1.15rem !important; padding: 0 !important; }
[data-testid="stMainBlockContainer"] [data-testid="stVerticalBlock"] { gap: 0.5rem; }
[data-testid="stHeading"] [data-testid="stMarkdownContainer"] { margin-bottom: 0; }
.st-key-present button { min-height: 0; height: auto; padding: 0.1rem 0.7rem; }
.st-key-present button p { font-size: 0.8rem; line-height: 1.3; }
%(dark)s
</style>"""
_DARK_CSS = """
[data-testid="stApp"], [data-testid="stMain"], [data-testid="stBottomBlockContainer"] {
  background: %(paper)s; color: %(ink)s; }
[data-testid="stApp"] p, [data-testid="stApp"] li, [data-testid="stApp"] label, [data-testid="stApp"] h1,
[data-testid="stApp"] h2, [data-testid="stApp"] h3, [data-testid="stApp"] span, [data-testid="stCaptionContainer"] {
  color: %(ink)s; }
[data-testid="stApp"] input, [data-testid="stApp"] textarea, [data-baseweb="select"] > div,
[data-testid="stSelectbox"] div[role="group"], [data-testid="stMultiSelect"] div[role="group"],
[data-testid="stNumberInputContainer"], [data-baseweb="textarea"], [data-baseweb="input"],
[data-testid="stApp"] [data-testid^="stBaseButton"], [data-testid="stButtonGroup"] button,
[data-testid="stApp"] a[data-testid^="stBaseLinkButton"] {
  background: %(field)s; color: %(ink)s; }
[data-testid="stSelectbox"] div[role="group"] input, [data-testid="stSelectbox"] div[role="group"] button,
[data-testid="stMultiSelect"] div[role="group"] input, [data-testid="stMultiSelect"] div[role="group"] button,
[data-testid="stTooltipHoverTarget"] button, [data-testid^="stNumberInputStep"] { background: transparent; }
[data-testid="stSelectbox"] div[role="group"] svg, [data-testid="stMultiSelect"] div[role="group"] svg,
[data-testid^="stNumberInputStep"] { color: %(ink)s; fill: %(ink)s; }
[data-testid="stCheckbox"] label:has(input[role="switch"]:not(:checked)) > div:first-of-type {
  background: %(off)s; }
[data-testid="stTooltipHoverTarget"] svg, [data-testid="stTooltipHoverTarget"] svg * { stroke: %(ink)s; }
[data-testid="stApp"] span[style*="background"] { color: %(light_ink)s; }
[data-testid="stDataFrame"] { filter: invert(0.9) hue-rotate(180deg); }
[data-testid="stTabsScrollRight"] { background-image: linear-gradient(to right, %(paper)s00, %(paper)s 40%%) !important;
  color: %(ink)s !important; }
[data-testid="stTabsScrollLeft"] { background-image: linear-gradient(to left, %(paper)s00, %(paper)s 40%%) !important;
  color: %(ink)s !important; }
""" % {**DARK, "light_ink": theme.DARK_INK}        # a chip on its own light background (a token) keeps dark ink
# a table (a canvas Streamlit draws in its own light theme) is inverted, its hues turned back


def _canonical(shown) -> str | None:
    """The English mode named by a shown label, in any language ("深色" -> "Dark"), or None."""
    return next((m for m in MODES if shown in {i18n.catalogue(c).gettext(m) for c in i18n.LANGUAGES}), None)


def mode() -> str | None:
    """"light", "dark" or None (not presenting), from the switch's state."""
    shown = st.session_state[KEY] if KEY in st.session_state else st.query_params.get(KEY)   # a link's first run
    m = _canonical(shown)
    return None if m in (None, MODES[0]) else m.lower()


def switch():
    """The presentation switch. In the sidebar as usual; while presenting (sidebar hidden) at the top of the page,
    its label folded away."""
    m = _canonical(st.session_state.get(KEY))
    if m is not None and st.session_state[KEY] != _(m):       # the language changed: keep the mode, say it anew
        st.session_state[KEY] = _(m)
    stale_link(KEY, [_(m) for m in MODES], _("the presentation mode"), _(MODES[0]))
    st.segmented_control(_("Presentation mode"), [_(m) for m in MODES], key=KEY, default=_(MODES[0]),
                         bind=BIND, persist_state=KEEP, required=True,
                         label_visibility="collapsed" if mode() else "visible",
                         help=_("For a projector: no sidebar, larger type, the main figure first. "
                                "Light or dark; it travels in the link."))


def style():
    """The page's CSS: on a phone's narrow screen, Plotly's modebar in a strip of its own above each figure (over
    the figure it covers the title); while presenting, presentation mode's look."""
    st.html(PHONE_CSS if mode() is None else
            PHONE_CSS + _CSS % {"root": round(16 * SCALE), "dark": _DARK_CSS if mode() == "dark" else ""})


_run = threading.local()         # .slot: this run's place for the main figure (None: not presenting, or taken)


def slot():
    """Presenting: a place at the top of the page for its main figure, taken now and returned; otherwise None (the
    page draws the figure where it usually does)."""
    _run.slot = st.container(key=MAIN_KEY) if mode() else None
    return _run.slot


def main():
    """The place slot() took, once per run (the first main figure gets it); None when not presenting, when the page
    took no place, or when it is already used."""
    place = getattr(_run, "slot", None)
    _run.slot = None
    return place


def figure(fig, main: bool = False, share: float = 1.0):
    """A Plotly figure as presentation mode shows it: type ×SCALE, numbers in cells at least CELL_FONT px, dark
    colours in dark mode, every labelled map's ticks refitted to the larger type (viz.ticks.fit), a square map as
    tall as the screen and only as wide as it needs (layout.width set: draw it at that width); a map of numbers as
    wide as the page and no taller than a square map; main: the page's main figure, no taller than a square map
    either, so that it fits the first screen under the title; share: the part of the page's width the figure is
    drawn in (1/3 in one of three columns); unchanged when not presenting. Returns the figure (changed in place)."""
    m = mode()
    if m is None:
        return fig
    size = (fig.layout.font.size or 14) * SCALE
    fig.update_layout(font_size=size, title_font_size=size * 1.15, hoverlabel_font_size=size)
    legend = fig.layout.legend
    if legend.orientation == "h" and legend.y is not None and legend.y < 0:
        # a legend below the plot, placed at a share of its height, would cover the larger x-axis title: at the
        # figure's foot instead, where the margin grows to hold it
        fig.update_layout(legend=dict(yref="container", y=0, yanchor="bottom"))
    if (main or any(t.type == "heatmap" for t in fig.data)) and (fig.layout.height or 0) > MAP_HEIGHT:
        fig.update_layout(height=MAP_HEIGHT)
    fitted = ticks.fit(fig, font=size, width=PAGE_WIDTH * share, again=True)
    numbers = _cell_numbers(fig, size, fitted)
    if one_square_map(fig.data) and not numbers:     # a square map as tall as a 720-px screen allows, cells square
        fig.update_layout(height=MAP_HEIGHT)
        fig.update_yaxes(scaleanchor="x", constrain="domain")
        fig.update_xaxes(constrain="domain")
        ticks.fit(fig, font=size, again=True)
        fig.update_layout(width=ticks.square_width(fig, size))
    if m == "dark":
        _darken(fig)
    return fig


def _cell_numbers(fig, size: float, fitted: ticks.Fitted) -> bool:
    """Numbers written in a map's cells at least CELL_FONT px (their own size ×SCALE when larger and that fits; else
    the figure's type, `size`); where the cells are too small for CELL_FONT, no numbers (the hover still has them)
    and the colour bar instead. fitted: the plot area the map has. Whether numbers are shown."""
    shown = False
    for t in fig.data:
        if t.type != "heatmap" or not t.texttemplate:
            continue
        rows, cols = np.shape(t.z)[:2]
        cells = [str(v).split("<br>") for v in np.ravel(t.text if t.text is not None else [])] or [["0.00"]]
        lines = max(len(c) for c in cells)
        widest = max(ticks.columns(line) for c in cells for line in c)
        fits = min(fitted.plot_h / rows / lines / NUMBER_LINE, fitted.plot_w / cols / (widest * ticks.CHAR + 0.3))
        if fits < CELL_FONT:
            t.update(texttemplate="", showscale=len({str(c) for _at, c in t.colorscale or ()}) > 1)
            continue
        t.update(textfont_size=min(fits, max(CELL_FONT, t.textfont.size * SCALE if t.textfont.size else size)))
        shown = True
    return shown


def _darken(fig):
    """Dark paper and light ink; a label on its own light box (a highlighted word) or on a diagram's light block
    keeps dark ink, for contrast; head colours and faint lines lighter (theme.on_dark), a diagram's arrows on the
    paper light (theme.lines_on_dark)."""
    fig.update_layout(paper_bgcolor=DARK["paper"], plot_bgcolor=DARK["paper"], font_color=DARK["ink"],
                      title_font_color=DARK["ink"],          # a title's or legend's own colour would stay dark
                      legend_font_color=DARK["ink"])
    for note in fig.layout.annotations:                     # subplot titles, words of an arc
        note.font.color = DARK["ink"] if theme.luminance(note.bgcolor) is None or theme.luminance(
            note.bgcolor) < 0.4 else theme.DARK_INK
    axes = dict(gridcolor=DARK["grid"], zerolinecolor=DARK["grid"], tickfont_color=DARK["ink"],
                title_font_color=DARK["ink"])
    fig.update_xaxes(**axes)
    fig.update_yaxes(**axes)
    theme.on_dark(fig)
    theme.lines_on_dark(fig, DARK["line"])         # a diagram: its words on light blocks dark, arrows on paper light
