"""Widget values no widget offers, refused where they enter the session (Streamlit 1.67 has no setting for it).

Any client can send any value for any widget in its rerun message, whatever the page shows. Streamlit turns some
into exceptions (`int(nan)` for an integer number box) and hands others to the page as they are (a string no
multiselect offers, a gallery title not in the gallery: its callback runs before the widget is drawn again). Here
a value the widget could not have sent is dropped as the client's widget states enter the session, before any
callback or page reads it: the widget keeps its previous value (or its default), the browser is told to show that
value, and the page says what was ignored (`notices`, called by app.py).

A value is checked against the widget as the browser last showed it (the previous run's metadata). A value for
a widget the session has not drawn yet is checked when the widget registers:
- a number box: an int or a float, finite, whole for an integer box, within its min and max;
- a slider: finite numbers within its range, one or two as the slider has, whole for an integer slider;
- a select slider: one or two of its option labels;
- every widget with a fixed list of options (selectbox, multiselect, radio, pills, segmented control, tabs): its
  labels only, no more picks than it allows, and no other kind of value;
- a chart's selection (Plotly, Vega-Lite, a dataframe's): a JSON object of at most SELECTION_MAX characters,
  nested at most JSON_DEPTH deep (a deeply nested one raised RecursionError);
- a file uploader: files of the types it accepts (Streamlit raised on every run of the page otherwise);
- every other widget (checkbox, toggle, button, text box, …): the kind of value it sends (a text box
  given a number raised in every later run of its page, the value being kept across pages).
`install()` runs from runtime.install() at the start of every script run; it patches once per process."""
import dataclasses
import json
import logging
import math
import threading
from collections.abc import Callable

import streamlit as st
from streamlit.elements.widgets.number_input import NumberInputSerde
from streamlit.elements.widgets.select_slider import SelectSliderSerde
from streamlit.elements.widgets.slider import SliderSerde
from streamlit.proto.NumberInput_pb2 import NumberInput as NumberInputProto
from streamlit.proto.Slider_pb2 import Slider as SliderProto
from streamlit.runtime.state.session_state import SessionState

from i18n import _

NOTICES = "_inputs_refused"        # session state: [(key, value as sent)] to show on the next run
CHECKED = "_inputs_checked"        # session state: ids whose incoming value passed against the last metadata
RESYNC = "_inputs_resync"          # session state: ids whose value was dropped: the browser must be told
SHOWN_MAX = 40                     # characters of a refused value quoted in a notice
SELECTION_MAX = 1 << 20            # characters of a chart selection's JSON
JSON_DEPTH = 32                    # nesting of a chart selection's JSON (a selection: 4)
SELECTIONS = ("PlotlyChartSelectionSerde", "VegaLiteStateSerde", "DataframeSelectionSerde",
              "EChartsChartSelectionSerde", "PydeckSelectionSerde")
_log = logging.getLogger(__name__)
_lock = threading.Lock()
_original = {}


def _shown(value) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return text if len(text) <= SHOWN_MAX else text[:SHOWN_MAX] + "…"


def _within(v: float, lo: float, hi: float) -> bool:
    """lo <= v <= hi, give or take float rounding (a slider's steps can land a hair past its end)."""
    return lo - 1e-9 * max(1.0, abs(lo)) <= v <= hi + 1e-9 * max(1.0, abs(hi))


def refused(meta, state) -> str | None:
    """The value in `state` (a WidgetState proto) as text when the widget `meta` (its WidgetMetadata) could never
    have sent it; None when it could (or the widget is of a kind not checked here)."""
    field = state.WhichOneof("value")
    if field is None:                                  # a cleared value: the widget's default
        return None
    value = getattr(state, field)
    value = list(value.data) if hasattr(value, "data") else value
    serde = getattr(meta.deserializer, "__self__", None)
    if isinstance(serde, NumberInputSerde):
        whole = serde.data_type == NumberInputProto.INT
        ok = (field in ("int_value", "double_value") and math.isfinite(value) and (not whole or value == int(value))
              and _within(value, serde.min_value, serde.max_value))
        return None if ok else _shown(value)
    if isinstance(serde, SliderSerde):
        whole = serde.data_type == SliderProto.INT
        ok = (field == "double_array_value" and len(value) == (1 if serde.single_value else 2)
              and all(math.isfinite(v) and _within(v, serde.min_value, serde.max_value) and (not whole or v == int(v))
                      for v in value))
        return None if ok else _shown(value)
    if isinstance(serde, SelectSliderSerde):
        ok = (field == "string_array_value" and 1 <= len(value) <= 2
              and all(v in serde.formatted_option_to_index for v in value))
        return None if ok else _shown(value)
    if type(serde).__name__ in SELECTIONS:
        return None if field == meta.value_type and _selection(value) else _shown(value)
    if type(serde).__name__ == "FileUploaderSerde":
        return None if field == meta.value_type and _files(serde, value) else _shown(_file_names(value))
    options = meta.formatted_options
    if options is None:
        return None if field == meta.value_type else _shown(value)
    if field == "string_value" and meta.value_type == "string_value":
        return None if value in options else _shown(value)
    if field == "string_array_value" and meta.value_type == "string_array_value":
        most = meta.max_array_length
        ok = all(v in options for v in value) and len(set(value)) == len(value) and (most is None or len(value) <= most)
        return None if ok else _shown(value)
    return _shown(value)                               # another kind of value than the widget sends


def _selection(value) -> bool:
    """Whether a chart selection's value is a JSON object within SELECTION_MAX characters and JSON_DEPTH levels."""
    if not isinstance(value, str) or len(value) > SELECTION_MAX:
        return False
    depth = deepest = 0
    quoted = escaped = False
    for c in value:                                   # nesting, outside strings, before the parser recurses
        if quoted:
            escaped, quoted = (False, True) if escaped else (c == "\\", c != '"')
        elif c == '"':
            quoted = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    if deepest > JSON_DEPTH:
        return False
    try:
        return isinstance(json.loads(value), dict)
    except ValueError:
        return False


def _files(serde, value) -> bool:
    """Whether a file uploader's state names files it takes (its deserializer refuses a file type it does not
    accept by raising, on every run of the page)."""
    try:
        serde.deserialize(value)
    except Exception:                                  # noqa: BLE001 - any refusal of Streamlit's own check
        return False
    return True


def _file_names(value) -> list[str]:
    return [f.name for f in getattr(value, "uploaded_file_info", ())] or [str(value)]


def _drop(state: SessionState, wid: str, shown: str, key: str | None = None) -> None:
    """Forget the client's value for `wid`, tell the browser the kept one, and note it for the page."""
    state._new_widget_state.states.pop(wid, None)
    key = key or state._key_id_mapper.id_key_mapping.get(wid, "")
    _log.warning("ignored a value no widget offers: %r for %r", shown, key or wid)
    state[NOTICES] = [*_get(state, NOTICES, []), (key, shown)]
    state[RESYNC] = _get(state, RESYNC, frozenset()) | {wid}


def _get(state: SessionState, key: str, default):
    try:
        return state[key]
    except KeyError:
        return default


def _checked_on_entry(self: SessionState, widget_states) -> None:
    """Replaces SessionState.set_widgets_from_proto: the client's values, each checked against the widget as the
    browser showed it."""
    _original["set_widgets_from_proto"](self, widget_states)
    checked = set()
    for ws in widget_states.widgets:
        meta = self._new_widget_state.widget_metadata.get(ws.id)
        if meta is None:
            continue                                   # checked when it registers
        shown = refused(meta, ws)
        if shown is None:
            checked.add(ws.id)
        else:
            _drop(self, ws.id, shown)
    self[CHECKED] = frozenset(checked)


def _checked_on_register(self: SessionState, metadata, user_key):
    """Replaces SessionState.register_widget: a value that arrived before the session knew the widget is checked
    against it now; a widget whose value was dropped tells the browser the value it keeps."""
    wid = metadata.id
    stored = self._new_widget_state.get_serialized(wid)
    if stored is not None and wid not in _get(self, CHECKED, frozenset()):
        shown = refused(metadata, stored)
        if shown is not None:
            _drop(self, wid, shown, user_key)
    result = _original["register_widget"](self, metadata, user_key)
    resync = _get(self, RESYNC, frozenset())
    if wid in resync:
        self[RESYNC] = resync - {wid}
        result = dataclasses.replace(result, value_changed=True)
    return result


def install() -> None:
    """Check every widget value a client sends (idempotent)."""
    with _lock:
        if SessionState.set_widgets_from_proto is not _checked_on_entry:
            _original["set_widgets_from_proto"] = SessionState.set_widgets_from_proto
            SessionState.set_widgets_from_proto = _checked_on_entry
        if SessionState.register_widget is not _checked_on_register:
            _original["register_widget"] = SessionState.register_widget
            SessionState.register_widget = _checked_on_register


def notices(escape: Callable[[str], str]) -> None:
    """Say which values were ignored since the last run, each passed through `escape` (the page's Markdown escape:
    the client chose them)."""
    for key, shown in st.session_state.pop(NOTICES, []):
        if key:
            text = _("Ignored a value this page does not offer: “{value}” for “{control}”. The control keeps its "
                     "previous value.").format(value=escape(shown), control=escape(key))
        else:
            text = _("Ignored a value this page does not offer: “{value}”. The control keeps its previous "
                     "value.").format(value=escape(shown))
        st.warning(text, icon=":material/block:")
