"""A light first view for a class: a page's charts drawn first as plain images, then made interactive.

When a whole class opens a link at once, each browser's first visit pays for plotly.js (a 4.6 MB script whose
evaluation blocks the page for seconds on a slow machine) before any chart is drawn. On a server started for a
class (serve/ sets LIGHT_ENV), the first run of a page in a session draws no Plotly chart: its main figures are
inline images (no request, no script: drawn with the page's first paint). Once that view is on screen the page
reruns by itself with the interactive charts; each image stays until its chart is drawn over it (CSS `:has`),
so the picture never blanks while plotly.js loads. Every later run, and every run of a server started without
LIGHT_ENV (`streamlit run app.py`), draws the interactive charts at once."""
import base64
import html
import os
from collections.abc import Callable

import streamlit as st

LIGHT_ENV = "ATTENTION_LAB_LIGHT_FIRST_VIEW"
UPGRADE_AFTER_S = 1.5          # the interactive rerun, this long after the first view was sent
IMAGE_CLASS = "first-view"     # the inline images' class (the classroom benchmark waits for it)
BOX = "first-view-"            # key prefix of the containers that hold an image and its chart
_RUNS = "_first_view_runs"     # session state: page -> runs of it in this session
_TICKS = "_first_view_ticks"   # session state: the upgrade timer's runs
_CSS = (f'<style>[class*="st-key-{BOX}"]:has(.main-svg) img.{IMAGE_CLASS} {{display: none !important}}</style>')


def enabled() -> bool:
    return os.environ.get(LIGHT_ENV) == "1"


def count(page: str) -> int:
    """Count this run of `page`: returns the visit's number in this session (1 on the first)."""
    runs = st.session_state.setdefault(_RUNS, {})
    runs[page] = runs.get(page, 0) + 1
    return runs[page]


def light(visit: int) -> bool:
    """Whether run number `visit` of a page draws images instead of charts: its first, on a server set for a
    class."""
    return enabled() and visit == 1


def figure(key: str, visit: int, src: Callable[[], str], alt: str, chart: Callable[[], object]) -> None:
    """One figure of a page: on the light first run the image src() (a data: URL), on the run after it the same
    image with chart() drawn over it once plotly.js has loaded, on later runs chart() alone. The image's slot is
    kept (empty) on later runs, so the chart's place on the page, and the chart, stay the same."""
    with st.container(key=BOX + key):
        slot = st.empty()
        if enabled() and visit <= 2:
            slot.html(f'{_CSS}<img class="{IMAGE_CLASS}" src="{src()}" alt="{html.escape(alt)}" '
                      f'title="{html.escape(alt)}" style="display:block;margin:10px auto;max-width:100%;'
                      f'height:auto">')
        if not light(visit):
            chart()


def png_src(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


def svg_src(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def upgrade_soon(visit: int) -> None:
    """After a light first run: rerun the page once, UPGRADE_AFTER_S later, so the interactive charts come.
    A fragment on a timer: the browser asks for the rerun, so a client that draws nothing is not rerun."""
    if not light(visit):
        return
    st.session_state[_TICKS] = 0

    @st.fragment(run_every=UPGRADE_AFTER_S)
    def _upgrade():
        st.session_state[_TICKS] += 1
        if st.session_state[_TICKS] > 1:        # the first call is this run's own
            st.rerun(scope="app")

    _upgrade()
