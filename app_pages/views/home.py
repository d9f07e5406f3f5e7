"""Home: what Attention Lab is and what each page teaches."""
import streamlit as st

from app_pages import _pages
from i18n import _


def render():
    st.title("Attention Lab")
    st.markdown(_(
        "See self-attention at work in small Transformers trained here, on text you type or on an "
        "image cut into patches. Every number and picture comes from the running model: nothing is drawn by hand. "
        "Start with the **Attention explorer**; the sidebar picks the text model and the device."
    ))
    pages = [p for p in _pages.PAGES if p.name != _pages.HOME]
    columns = st.columns(2)
    for i, (name, title, icon, blurb) in enumerate(pages):
        with columns[i % 2].container(border=True, height="stretch"):
            st.page_link(_pages.page(name), label=f"**{_(title)}**", icon=icon)
            st.caption(_(blurb))
