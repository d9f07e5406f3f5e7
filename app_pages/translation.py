"""The translation page; what it teaches and draws is in app_pages/views/translation.py."""
from app_pages.views.translation import render

render()
