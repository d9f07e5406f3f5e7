"""A session that reruns a page with new text does not keep the widgets of earlier runs: charts with
`on_select` get a new id per figure, and Streamlit 1.67 would keep each one's metadata and callback, and with
them what the callback reaches of that run (runtime/memory.py). Counted: widgets and live Plotly figures."""
import gc

from plotly.basedatatypes import BaseFigure

from tests.app.conftest import open_page

TEXTS = ["the cat sat on the mat .", "the chef cooked the meal because it was late .",
         "a student read the book and it was long .", "the dog chased the ball .",
         "the teacher asked the class a question ."]


def _metadata(at) -> dict:
    return at._session_state._state._new_widget_state.widget_metadata


def _figures_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if issubclass(type(o), BaseFigure))


def test_explorer_reruns_keep_one_run_of_widgets():
    before = _figures_alive()                         # other tests' sessions may still be alive
    at = open_page("explorer.py")
    box = next(w for w in at.text_area if w.key == "explorer_text")
    box.set_value(TEXTS[0]).run()
    after_one = len(_metadata(at))
    for text in TEXTS[1:]:
        next(w for w in at.text_area if w.key == "explorer_text").set_value(text).run()
        assert not at.exception
    assert len(_metadata(at)) <= after_one
    assert _figures_alive() - before <= 0             # figures live only while their run draws them


def test_long_lived_objects_are_frozen_once_so_the_collection_after_each_run_skips_them():
    at = open_page("explorer.py")                     # modules imported and the model loaded: frozen after the run
    frozen = gc.get_freeze_count()
    assert frozen > 100_000                           # torch, plotly, pandas, streamlit, the model: not walked again
    tracked = sum(gc.get_count())
    for text in TEXTS[:2]:
        next(w for w in at.text_area if w.key == "explorer_text").set_value(text).run()
        assert not at.exception
    assert gc.get_freeze_count() == frozen            # no new module or model: nothing more frozen (no run kept)
    assert len(gc.get_objects()) < frozen / 2, (tracked, len(gc.get_objects()))   # a full collection walks these
