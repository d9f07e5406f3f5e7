"""The architecture page; what it teaches and draws is in app_pages/views/architecture.py."""
from app_pages.views.architecture import render

render()
