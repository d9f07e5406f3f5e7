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

import streamlit as st

import i18n
from app_pages._url import BIND, KEEP, stale_link
from i18n import N_, _
from viz.slide import one_square_map, square_map_width

KEY = "present"
MODES = (N_("Off"), N_("Light"), N_("Dark"))
SCALE = 1.6                     # type size in presentation mode, against the usual
MAP_HEIGHT = 600                # px: a square map fills a 1280 × 720 screen's height below a short title
DARK = {"paper": "#0e1117", "ink": "#fafafa", "grid": "#31333f"}

_CSS = """
<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"], [data-testid="stHeader"],
[data-testid="stSidebarNav"], [data-testid="stExpandSidebarButton"] { display: none !important; }
html { font-size: %(root)dpx; }
[data-testid="stMainBlockContainer"] { padding: 0.4rem 1.2rem 2rem 1.2rem; max-width: 100%%; }
h1 { font-size: 1.5rem !important; padding: 0.2rem 0 !important; }
h2, h3 { font-size: 1.15rem !important; padding: 0.1rem 0 !important; }
%(dark)s
</style>"""
_DARK_CSS = """
[data-testid="stApp"], [data-testid="stMain"], [data-testid="stBottomBlockContainer"] {
  background: %(paper)s; color: %(ink)s; }
[data-testid="stApp"] p, [data-testid="stApp"] li, [data-testid="stApp"] label, [data-testid="stApp"] h1,
[data-testid="stApp"] h2, [data-testid="stApp"] h3, [data-testid="stApp"] span, [data-testid="stCaptionContainer"] {
  color: %(ink)s; }
[data-testid="stApp"] input, [data-testid="stApp"] textarea, [data-baseweb="select"] > div,
[data-testid="stApp"] button { background: #262730; color: %(ink)s; }
""" % DARK


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
    """The page's CSS while presenting (nothing otherwise)."""
    if mode() is None:
        return
    st.html(_CSS % {"root": round(16 * SCALE), "dark": _DARK_CSS if mode() == "dark" else ""})


_run = threading.local()         # .slot: this run's place for the main figure (None: not presenting, or taken)


def slot():
    """Presenting: a place at the top of the page for its main figure, taken now and returned; otherwise None (the
    page draws the figure where it usually does)."""
    _run.slot = st.container() if mode() else None
    return _run.slot


def main():
    """The place slot() took, once per run (the first main figure gets it); None when not presenting, when the page
    took no place, or when it is already used."""
    place = getattr(_run, "slot", None)
    _run.slot = None
    return place


def figure(fig):
    """A Plotly figure as presentation mode shows it: type ×SCALE, dark colours in dark mode, a square map as tall
    as the screen and only as wide as it needs (layout.width set: draw it at that width); unchanged when not
    presenting. Returns the figure (changed in place)."""
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
    if one_square_map(fig.data):            # a square map as tall as a 720-px screen allows, its cells square
        fig.update_layout(height=MAP_HEIGHT, width=square_map_width(fig, MAP_HEIGHT, size))
        fig.update_yaxes(scaleanchor="x", constrain="domain")
        fig.update_xaxes(constrain="domain")
    if m == "dark":
        fig.update_layout(paper_bgcolor=DARK["paper"], plot_bgcolor=DARK["paper"], font_color=DARK["ink"],
                          title_font_color=DARK["ink"],          # a title's or legend's own colour would stay dark
                          legend_font_color=DARK["ink"])
        fig.update_annotations(font_color=DARK["ink"])          # subplot titles too
        axes = dict(gridcolor=DARK["grid"], zerolinecolor=DARK["grid"], tickfont_color=DARK["ink"],
                    title_font_color=DARK["ink"])
        fig.update_xaxes(**axes)
        fig.update_yaxes(**axes)
    return fig
