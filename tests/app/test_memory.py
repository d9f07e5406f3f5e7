"""A session that reruns a page with new text does not keep the widgets of earlier runs: charts with
`on_select` get a new id per figure, and Streamlit 1.67 would keep each one's metadata, callback and,
through it, that run's whole page namespace (app_pages/_memory.py)."""
import gc
from pathlib import Path

from tests.app.conftest import open_page

PAGE = ("app_pages", "explorer.py")

TEXTS = ["the cat sat on the mat .", "the chef cooked the meal because it was late .",
         "a student read the book and it was long .", "the dog chased the ball .",
         "the teacher asked the class a question ."]


def _metadata(at) -> dict:
    return at._session_state._state._new_widget_state.widget_metadata


def _page_namespaces_alive() -> int:
    """Namespaces Streamlit made to run the explorer page, one per run: dicts named "__main__" whose
    __file__ is the page script (an import of the page would carry its module name instead)."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is dict and o.get("__name__") == "__main__"
               and Path(str(o.get("__file__", ""))).parts[-2:] == PAGE)


def test_explorer_reruns_keep_one_run_of_widgets():
    before = _page_namespaces_alive()                 # other tests' sessions may still be alive
    at = open_page("explorer.py")
    box = next(w for w in at.text_area if w.key == "explorer_text")
    box.set_value(TEXTS[0]).run()
    after_one = len(_metadata(at))
    assert _page_namespaces_alive() > before           # the count sees this run's namespace (kept by its charts)
    for text in TEXTS[1:]:
        next(w for w in at.text_area if w.key == "explorer_text").set_value(text).run()
        assert not at.exception
    assert len(_metadata(at)) <= after_one
    assert _page_namespaces_alive() - before <= 2     # this run's, and at most the one before it
