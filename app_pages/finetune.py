"""The fine-tuning page; what it teaches and draws is in app_pages/views/finetune.py."""
from app_pages.views.finetune import render

render()
