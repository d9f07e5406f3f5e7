"""The why-attention page; what it teaches and draws is in app_pages/views/why_attention.py."""
from app_pages.views.why_attention import render

render()
