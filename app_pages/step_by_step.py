"""The step by step page; what it teaches and draws is in app_pages/views/step_by_step.py."""
from app_pages.views.step_by_step import render

render()
