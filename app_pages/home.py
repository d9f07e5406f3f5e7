"""Home: what Attention Lab is and what each page teaches."""
import streamlit as st

from app_pages import _pages

st.title("Attention Lab")
st.markdown(
    "See self-attention at work in small Transformers trained here, on text you type or on an "
    "image cut into patches. Every number and picture comes from the running model: nothing is drawn by hand."
)
for file, title, icon, blurb in _pages.available():
    if file == "home.py":
        continue
    with st.container(border=True):
        st.page_link(f"app_pages/{file}", label=f"**{title}**", icon=icon)
        st.caption(blurb)
