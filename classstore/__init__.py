"""The class's answers in one shared store, in plain Python (no Streamlit): the pages (app_pages/_class.py), the
load test (serve/class_load.py), the benchmark and the tests use it alike.

  store.py           the interface and its rules: a class, its questions, each student's picks; `open_store(url)`
  redis_backend.py   Redis, what every replica of a class reaches
  sqlite_backend.py  an embedded SQLite file, for a single `streamlit run app.py`

Imports the standard library and redis; never the app, its pages, the runtime or the model."""
