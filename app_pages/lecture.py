"""The lecture page; what it shows and does is in app_pages/views/lecture.py."""
from app_pages.views.lecture import render

render()
