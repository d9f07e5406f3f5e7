"""The class page (students' phones); what it shows and does is in app_pages/views/classroom.py."""
from app_pages.views.classroom import render

render()
