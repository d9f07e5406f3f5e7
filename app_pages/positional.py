"""The positional page; what it teaches and draws is in app_pages/views/positional.py."""
from app_pages.views.positional import render

render()
