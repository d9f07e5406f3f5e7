"""The masks page; what it teaches and draws is in app_pages/views/masks.py."""
from app_pages.views.masks import render

render()
