"""Which widget values a client may send (runtime/input_checks.refused): every value the browser's own widgets send
passes, and each value no widget offers (NaN, a float in an integer box, out of range, a label not among the
options, another kind of value) is refused and quoted. Widgets are described as Streamlit 1.67 registers them."""
import math

import pytest
from streamlit.elements.widgets.multiselect import MultiSelectSerde
from streamlit.elements.widgets.number_input import NumberInputSerde
from streamlit.elements.widgets.select_slider import SelectSliderSerde
from streamlit.elements.widgets.selectbox import SelectboxSerde
from streamlit.elements.widgets.slider import SliderSerde
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.Slider_pb2 import Slider
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.runtime.state.common import WidgetMetadata

from runtime.input_checks import refused


def meta(serde, value_type: str, options=None, most=None) -> WidgetMetadata:
    return WidgetMetadata("$$ID-x-key", serde.deserialize, serde.serialize, value_type, formatted_options=options,
                          max_array_length=most)


def state(field: str, value) -> WidgetState:
    s = WidgetState(id="$$ID-x-key")
    if field.endswith("array_value"):
        getattr(s, field).data.extend(value)
    else:
        setattr(s, field, value)
    return s


N_BOX = meta(NumberInputSerde(32, NumberInput.INT, 4, 512), "double_value")            # masks' N: 4..512
W_BOX = meta(NumberInputSerde(0.02, NumberInput.FLOAT, 0.0, 0.5), "double_value")      # a float box
K_SLIDER = meta(SliderSerde([2], Slider.INT, True, None, 1, 16), "double_array_value")  # masks' layers k
RANGE = meta(SliderSerde([2.0, 5.0], Slider.FLOAT, False, None, 0.0, 10.0), "double_array_value")
LAYERS = ["L0", "L1", "L2", "L3"]
LAYER = meta(SelectSliderSerde(range(4), formatted_option_to_index={x: i for i, x in enumerate(LAYERS)},
                               default_indices=[3]), "string_array_value")
GALLERY = ["Winograd: trophy", "Own text"]
PICK = meta(SelectboxSerde(GALLERY, formatted_options=GALLERY,
                           formatted_option_to_option_index={x: i for i, x in enumerate(GALLERY)}),
            "string_value", GALLERY)
SIZES = ["256", "1024", "4096"]
MULTI = meta(MultiSelectSerde([256, 1024, 4096], formatted_options=SIZES,
                              formatted_option_to_option_index={x: i for i, x in enumerate(SIZES)}),
             "string_array_value", SIZES, most=2)


@pytest.mark.parametrize("widget,field,value", [
    (N_BOX, "int_value", 32), (N_BOX, "int_value", 4), (N_BOX, "int_value", 512), (N_BOX, "double_value", 64.0),
    (W_BOX, "double_value", 0.15000000000000002), (W_BOX, "double_value", 0.1 * 5 + 1e-16),   # float steps
    (RANGE, "double_array_value", [0.05 * 3, 0.1 * 100 + 1e-15]), (K_SLIDER, "double_array_value", [16.0]),
    (RANGE, "double_array_value", [0.5, 9.5]), (LAYER, "string_array_value", ["L2"]),
    (LAYER, "string_array_value", ["L0", "L3"]), (PICK, "string_value", "Own text"),
    (MULTI, "string_array_value", ["256", "4096"]), (MULTI, "string_array_value", []),
])
def test_values_the_widgets_send_pass(widget, field, value):
    assert refused(widget, state(field, value)) is None


@pytest.mark.parametrize("widget,field,value,shown", [
    (N_BOX, "double_value", math.nan, "nan"), (N_BOX, "double_value", math.inf, "inf"),
    (N_BOX, "double_value", 3.5, "3.5"), (N_BOX, "int_value", 513, "513"), (N_BOX, "int_value", -1, "-1"),
    (N_BOX, "string_value", "7", "7"), (W_BOX, "double_value", -math.inf, "-inf"),
    (K_SLIDER, "double_array_value", [1.5], "1.5"), (K_SLIDER, "double_array_value", [2.0, 3.0], "2.0, 3.0"),
    (K_SLIDER, "double_array_value", [math.nan], "nan"), (RANGE, "double_array_value", [0.5, 11.0], "0.5, 11.0"),
    (LAYER, "string_array_value", ["L9"], "L9"), (LAYER, "int_array_value", [1], "1"),
    (PICK, "string_value", "Not in the gallery", "Not in the gallery"), (PICK, "int_value", 0, "0"),
    (MULTI, "string_array_value", ["1024", "banana"], "1024, banana"),
    (MULTI, "string_array_value", ["256", "256"], "256, 256"),
    (MULTI, "string_array_value", ["256", "1024", "4096"], "256, 1024, 4096"),      # more picks than allowed
    (MULTI, "string_value", "256", "256"),
    (PICK, "string_value", "x" * 100, "x" * 40 + "…"),
])
def test_values_no_widget_offers_are_refused_and_quoted(widget, field, value, shown):
    assert refused(widget, state(field, value)) == shown


def test_a_cleared_value_passes_and_widgets_without_options_are_not_judged():
    assert refused(PICK, WidgetState(id="$$ID-x-key")) is None
    text = meta(SelectboxSerde([], formatted_options=[], formatted_option_to_option_index={}), "string_value")
    assert refused(text, state("string_value", "anything typed")) is None
