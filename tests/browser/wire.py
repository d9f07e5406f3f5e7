"""The Streamlit wire client moved to serve/wire.py (the class load test speaks it too); this name stays for
tests written against it."""
from serve.wire import Session, elements, session, texts, widget, widget_id  # noqa: F401
