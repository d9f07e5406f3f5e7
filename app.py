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

from app_pages import _class, _downloads, _inputs, _language, _memory, _pages, _present, _resources, _server, _url  # noqa: E402,E501
from i18n import _  # noqa: E402

torch.set_num_threads(1)             # one thread per session: a second one mostly spins on these sizes
_server.install()                    # no client clears the shared caches or reads the metrics of others
_inputs.install()                    # a widget value no widget offers is refused before callbacks or pages read it
_downloads.install()                 # a download that raced a rerun says so; what a session's downloads hold is bounded
_memory.bound_heap_fragmentation()
_memory.forget_stale_widgets()
_memory.release_freed_heap()
st.set_page_config(page_title="Attention Lab", page_icon="assets/icon.png", layout="wide")

_language.install()
_class.adopt_host_link()             # a view opened from the lecture page hosts its class; the key leaves the link
with st.sidebar:                     # first: the page titles below are in the session's language
    _language.switch()
_language.relabel_link()
_inputs.notices()                    # what a client sent that no widget offers, ignored
_downloads.remember()                # the session's language, for download answers given outside its runs
presenting = _present.mode() is not None
_present.style()
with st.container() if presenting else st.sidebar:   # presenting, the sidebar is hidden: the way back tops the page
    _present.switch()
pages, files = [], {}                # files: url path -> the page's file in app_pages/
for file, title, icon, _blurb in _pages.available():
    url = "" if file == "home.py" else file.removesuffix(".py")
    pages.append(st.Page(f"app_pages/{file}", title=_(title), icon=icon, default=(file == "home.py"), url_path=url))
    files[url] = file
router = st.navigation(pages, expanded=True)   # every page listed (13 would fold after 10)
_resources.sidebar(files.get(router.url_path, ""))
try:
    router.run()
finally:                                    # also after st.stop(): the lecture page offers the view just left
    if router.url_path != "lecture":
        _url.remember_view(router.url_path)  # after the run, so the bound widgets' values are in the URL
    _memory.freeze_long_lived(_resources.LOAD_COUNT["n"])   # the full collection after each run skips them
