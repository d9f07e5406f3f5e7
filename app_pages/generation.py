"""The generation page; what it teaches and draws is in app_pages/views/generation.py."""
from app_pages.views.generation import render

render()
