"""The sentence-similarity page; what it teaches and draws is in app_pages/views/similarity.py."""
from app_pages.views.similarity import render

render()
