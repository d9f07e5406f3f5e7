"""The images page; what it teaches and draws is in app_pages/views/images.py."""
from app_pages.views.images import render

render()
