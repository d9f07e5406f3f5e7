"""Every view in the URL (AppTest), for the positional and masks pages: a fresh session opened on a link (query
parameters) shows the same tab, numbers, pattern and its parameters, model, layer, head and picked words; a stale
link value (an unknown tab, model, pattern or word, a layer or a number out of range) opens with a notice and the
default; HTML in a link stays text; a 100,000-character text in a link gets the page's usual clipping notice, no
exception, and then leaves the link. The text-model parts (word order, the live masks) run on a tiny random
word-level encoder saved to a temporary assets folder, so they do not depend on the shipped weights. The pages on
their shipped models: test_url_views_shipped.py."""
from unittest import mock

import numpy as np
import pytest

from model import checkpoints
from model.analysis import reach, relative
from model.analysis.shift import shift_matrix
from model.engine import masks
from tests.app.conftest import infos, open_link
from tests.app.conftest import plotly_chart as chart
from tests.app.conftest import trace_z as z_of
from tests.app.url_views import HTML, LONG, clipped_and_unbound, no_markup_injected, stale, title
from tests.conftest import save_random_text_model

TINY = "url_views_more_tiny"        # a name no shipped model uses, so process-wide caches cannot mix them up
TEXT = "the chef cooked the meal because it was late ."
ORDER_A, ORDER_B = "the chef cooked the meal .", "the meal cooked the chef ."
VOCABULARY = f"{TEXT} {ORDER_A} The woman ate the raccoon. The raccoon ate the woman."


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    """An assets folder holding only a 2-layer, 4-head random word-level encoder."""
    folder = tmp_path_factory.mktemp("assets")
    save_random_text_model(folder, TINY, VOCABULARY, seed=3, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=64)
    return folder


@pytest.fixture
def tiny(tiny_folder):
    """The tiny encoder as the only shipped model, for one test."""
    with mock.patch.object(checkpoints, "ASSETS", tiny_folder):
        yield


# ---- positional encodings ----------------------------------------------------------------------------------------
def test_a_link_opens_the_shift_identity_on_its_offset_width_and_dimensions(tiny):
    at = open_link("positional.py", pos_tab="Shift identity", shift_k="37", shift_d="64", shift_show="8")
    assert at.number_input(key="shift_k").value == 37 and at.selectbox(key="shift_d").value == 64
    assert at.slider(key="shift_show").value == 8
    spec = chart(at, "shift_matrix")
    assert title(spec) == "M_37 (first 8 dimensions)"
    np.testing.assert_allclose(z_of(spec["data"][0]), shift_matrix(37, 64)[:8, :8], atol=1e-12)
    assert not infos(at)
    assert at.query_params["pos_tab"] == "Shift identity" and at.query_params["shift_k"] == "37"


def test_a_link_opens_rope_and_alibi_on_their_head_and_settings(tiny):
    at = open_link("positional.py", pos_tab="Learned vs relative", rope_d="32", rope_n="16", alibi_heads="4",
                   alibi_head="H3", alibi_causal="true")
    assert at.selectbox(key="rope_d").value == 32 and at.slider(key="rope_n").value == 16
    assert at.selectbox(key="alibi_head").value == 3 and at.checkbox(key="alibi_causal").value is True
    assert f"H3 of 4: slope m = 2^(−8·4/4) = {relative.alibi_slopes(4)[3]:.5f}." in [c.value for c in at.caption]
    assert f"{2 ** (-8 * 4 / 4):.5f}" == f"{relative.alibi_slopes(4)[3]:.5f}"   # H3 is h = 3: 2^(−8(h+1)/H)
    bias = chart(at, "alibi_bias")
    assert title(bias) == "Bias, H3"
    assert np.isnan(z_of(bias["data"][0])[0, 1])                       # causal: the future has no bias at all
    assert z_of(chart(at, "rope_matrix")["data"][0]).shape == (16, 16)


def test_a_link_opens_the_word_order_demo_on_its_sentences_layer_head_and_positions(tiny):
    at = open_link("positional.py", order_a=ORDER_A, order_b=ORDER_B, order_layer="L1", order_head="H2",
                   order_positions="on")
    assert at.text_input(key="order_a").value == ORDER_A and at.text_input(key="order_b").value == ORDER_B
    assert at.selectbox(key="order_layer").value == 1 and at.selectbox(key="order_head").value == 2
    assert at.radio(key="order_positions").value == "on"
    assert title(chart(at, "order_heat_a")) == "Sentence, positions on"
    assert not infos(at) and not at.error


def test_stale_tab_width_and_numbers_in_a_positional_link_give_notices_and_defaults(tiny):
    at = open_link("positional.py", pos_tab="Sound waves", shift_k="99999")
    assert stale("the tab", "Sound waves", "Word order") in infos(at)
    at = open_link("positional.py", pos_tab="Waves", pe_d="100", pe_n="1e308", pe_dim="-4")
    shown = infos(at)
    assert stale("d_model", "100", "128") in shown
    assert stale("positions", "1e308", "100") in shown
    assert stale("dimension", "\\-4", "2") in shown
    assert at.selectbox(key="pe_d").value == 128 and at.number_input(key="pe_n").value == 100
    for key in ("pe_d", "pe_n", "pe_dim"):
        assert key not in at.query_params
    at = open_link("positional.py", pos_tab="Shift identity", shift_k="99999")
    assert stale("the offset", "99999", "5") in infos(at) and at.number_input(key="shift_k").value == 5


def test_html_and_100k_texts_in_a_positional_link(tiny):
    at = open_link("positional.py", order_a=HTML, order_b="the chef <b>")
    assert at.text_input(key="order_a").value == HTML
    no_markup_injected(at, "<img", "<b>")
    at = open_link("positional.py", order_a=LONG)
    assert "The text has 100,000 characters; only the first 400 are used." in [w.value for w in at.warning]
    assert at.text_input(key="order_a").value == LONG[:400]                # the box's own limit
    at = open_link("positional.py", pos_tab="Beyond max_len", len_text=LONG)
    clipped_and_unbound(at, "len_text", "warning", "The text has 100,000 characters; only the first 20,000 are used.")


# ---- masks ---------------------------------------------------------------------------------------------------------
def test_a_link_opens_the_pattern_lab_on_its_patterns_and_parameters(tiny):
    at = open_link("masks.py", masks_n="40", masks_A_pattern="Dilated window", masks_A_width="3",
                   masks_A_causal="true", masks_B_pattern="Chosen global tokens", masks_B_positions="0, 7",
                   predict="false")
    assert at.number_input(key="masks_n").value == 40
    assert at.selectbox(key="masks_A_pattern").value == "dilated" and at.number_input(key="masks_A_width").value == 3
    assert at.text_input(key="masks_B_positions").value == "0, 7"
    a = chart(at, "masks_plot_A")
    assert title(a) == "A: Dilated window (causal)"
    np.testing.assert_array_equal(z_of(a["data"][0]), masks.build("dilated", 40, True, width=3))
    b = chart(at, "masks_plot_B")
    np.testing.assert_array_equal(z_of(b["data"][0]), masks.build("global", 40, width=2, positions=(0, 7)))
    assert not infos(at)
    assert at.query_params["masks_A_pattern"] == "Dilated window"


def test_a_link_opens_the_receptive_field_after_its_layers(tiny):
    at = open_link("masks.py", masks_tab="Receptive field", masks_k="3", masks_A_pattern="Strided (Sparse Transformer)")
    assert at.slider(key="masks_k").value == 3
    spec = chart(at, "masks_reach_A")
    assert title(spec) == "A after 3 layers"
    np.testing.assert_array_equal(z_of(spec["data"][0]),
                                  reach.receptive_field(masks.build("strided", 32, stride=4), 3))


def test_a_link_opens_the_live_effect_on_its_model_text_pattern_layer_and_head(tiny):
    at = open_link("masks.py", masks_tab="Live effect", masks_model=TINY, masks_text=TEXT,
                   masks_live_pattern="Sliding window", masks_live_width="1", masks_layer="L0", masks_head="H2")
    assert at.selectbox(key="masks_model").value == TINY and at.text_area(key="masks_text").value == TEXT
    assert at.select_slider(key="masks_layer").value == 0 and at.select_slider(key="masks_head").value == 2
    spec = chart(at, "masks_live_masked")
    assert title(spec) == "Under Sliding window: L0 H2"
    z = z_of(spec["data"][0])
    allowed = masks.sliding_window(len(z), 1)
    assert (z[~allowed] == 0).all() and np.allclose(z.sum(1), 1, atol=1e-5)
    assert not infos(at)


def test_stale_pattern_model_layer_and_numbers_in_a_masks_link(tiny):
    at = open_link("masks.py", masks_A_pattern="Hexagonal", masks_n="100000", masks_B_width="-3")
    shown = infos(at)
    assert stale("the pattern", "Hexagonal", "Sliding window") in shown
    assert stale("sequence length", "100000", "32") in shown
    assert stale("window (tokens each side)", "\\-3", "2") in shown
    assert at.selectbox(key="masks_A_pattern").value == "window" and at.number_input(key="masks_n").value == 32
    at = open_link("masks.py", masks_tab="Live effect", masks_model="retired_model", masks_layer="L7",
                   masks_head="H0")
    shown = infos(at)
    assert stale("the model", "retired\\_model", TINY.replace("_", "\\_")) in shown
    assert stale("layer", "L7", "L1") in shown                          # the tiny model's last layer
    assert at.select_slider(key="masks_layer").value == 1


def test_html_and_100k_texts_in_a_masks_link(tiny):
    at = open_link("masks.py", masks_tab="Live effect", masks_text=HTML, masks_B_pattern="Chosen global tokens",
                   masks_B_positions="<script>alert(1)</script>")
    assert at.text_area(key="masks_text").value == HTML
    assert any("whole numbers" in e.value for e in at.error)            # the positions box refuses it in words
    no_markup_injected(at, "<img", "<b>", "<script>")
    at = open_link("masks.py", masks_tab="Live effect", masks_text=LONG)
    clipped_and_unbound(at, "masks_text", "warning",
                        "The text has 100,000 characters; only the first 20,000 are used.")


# ---- decoder & generation (the shipped general_gpt and general_encoder) ---------------------------------------------
