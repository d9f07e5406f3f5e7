"""The coreference page; what it teaches and draws is in app_pages/views/coreference.py."""
from app_pages.views.coreference import render

render()
