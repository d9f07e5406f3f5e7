"""The explorer page; what it teaches and draws is in app_pages/views/explorer.py."""
from app_pages.views.explorer import render

render()
