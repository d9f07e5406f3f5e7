"""Attention Lab: the Streamlit entry. Page config, the shared sidebar, and the page router."""
import os

# Small matrices run faster on one BLAS thread, and sessions already run in parallel threads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Sessions run in parallel threads. Plotly looks pandas up at draw time, and a thread that does so
# while another is still importing it gets a half-built module; import both here, before any page.
import pandas  # noqa: E402,F401
import plotly.graph_objects  # noqa: E402,F401
import streamlit as st  # noqa: E402
import torch  # noqa: E402

import runtime  # noqa: E402

runtime.install()                    # first: refuses a Streamlit release its patches were not written for

from app_pages import _class, _language, _markup, _pages, _present, _resources, _url, _walk  # noqa: E402
from runtime import downloads, input_checks, link_values, memory  # noqa: E402

torch.set_num_threads(1)             # one thread per session: a second one mostly spins on these sizes
st.set_page_config(page_title="Attention Lab", page_icon="assets/icon.png", layout="wide")

_language.install()
_class.adopt_host_link()             # a view opened from the lecture page hosts its class; the key leaves the link
with st.sidebar:                     # first: the page titles below are in the session's language
    _language.switch()
input_checks.notices(_markup.md)     # what a client sent that no widget offers, ignored
link_values.notices(_markup.md)      # a link's parameters no control reads, ignored
downloads.remember()                 # the session's language, for download answers given outside its runs
_present.style()
pages = [_pages.page(entry.name) for entry in _pages.PAGES]    # each a view's render(), at its own url path
router = st.navigation(pages, expanded=True)   # every page listed (13 would fold after 10)
_walk.top(router.url_path)           # the presentation switch; over a view opened from the lecture, its bar
_resources.sidebar(router.url_path)
try:
    router.run()
finally:                                    # also after st.stop(): the lecture page offers the view just left
    if router.url_path != "lecture":
        _url.remember_view(router.url_path)  # after the run, so the bound widgets' values are in the URL
    memory.freeze_long_lived(_resources.LOAD_COUNT["n"])   # the full collection after each run skips them
