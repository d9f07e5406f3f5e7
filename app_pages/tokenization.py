"""The tokenization page; what it teaches and draws is in app_pages/views/tokenization.py."""
from app_pages.views.tokenization import render

render()
