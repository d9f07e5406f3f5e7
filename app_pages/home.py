"""The home page; what it teaches and draws is in app_pages/views/home.py."""
from app_pages.views.home import render

render()
