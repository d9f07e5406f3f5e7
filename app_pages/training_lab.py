"""The training lab page; what it teaches and draws is in app_pages/views/training_lab.py."""
from app_pages.views.training_lab import render

render()
