"""Every view in the URL (AppTest), for the positional, masks, generation, translation, image and architecture pages:
a fresh session opened on a link (query parameters) shows the same tab, numbers, pattern and its parameters, model,
layer, head, picked words and image; a stale link value (an unknown tab, model, pattern, sample or word, a layer or
a number out of range) opens with a notice and the default; HTML in a link stays text; a 100,000-character text in
a link gets the page's usual clipping notice, no exception, and then leaves the link.

The text-model parts (word order, the live masks) run on a tiny random word-level encoder saved to a temporary
assets folder, so they do not depend on the shipped weights; the generation, translation and image pages run their
shipped models, and what is asserted there (widget values, figure titles, counts) holds for any weights."""
import json
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
from tests.conftest import save_random_text_model

TINY = "url_views_more_tiny"        # a name no shipped model uses, so process-wide caches cannot mix them up
TEXT = "the chef cooked the meal because it was late ."
ORDER_A, ORDER_B = "the chef cooked the meal .", "the meal cooked the chef ."
VOCABULARY = f"{TEXT} {ORDER_A} The woman ate the raccoon. The raccoon ate the woman."
LONG = ("the chef cooked the meal because it was late . " * 2_200)[:100_000]
HTML = '<img src=x onerror="alert(1)"><b>the</b> chef'


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


def stale(what: str, asked: str, shown: str) -> str:
    """The notice _url.stale_link gives (text as the notice escapes it)."""
    return f"The link asked for {what} “{asked}”, which is not on this page now; showing “{shown}”."


def title(spec: dict) -> str:
    t = spec["layout"].get("title", {})
    return t.get("text", "") if isinstance(t, dict) else str(t)


def no_markup_injected(at, *tags: str):
    """No element that renders HTML (markdown with allow_html, a Plotly title or annotation) carries the tags."""
    for m in at.get("markdown"):
        if m.proto.allow_html:
            assert not any(t in m.value for t in tags), m.value
    for c in at.get("plotly_chart"):
        spec = json.loads(c.proto.spec)
        texts = [title(spec)] + [a.get("text", "") for a in spec["layout"].get("annotations", [])]
        assert not any(t in x for t in tags for x in texts), texts


def clipped_and_unbound(at, key: str, kind: str, message: str):
    """A 100k link text: the page's usual notice, the caption that it stays out of links, and the next run drops
    it from the URL."""
    assert message in [e.value for e in getattr(at, kind)]
    assert any(c.value.startswith("This text has 100,000 characters, more than the 2,000 a link carries")
               for c in at.caption)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert key not in at.query_params


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
def test_a_link_opens_generation_on_its_prompt_strategy_and_attention_head():
    at = open_link("generation.py", gen_prompt="The cat sat on the", gen_tab="Generate step by step",
                   gen_strategy="top-k sampling", gen_k="7", gen_temp="1.5", gen_seed="42", gen_max_new="6",
                   gen_layer="L1", gen_head="H2")
    assert at.text_input(key="gen_prompt").value == "The cat sat on the"
    assert at.radio(key="gen_strategy").value == "top_k" and at.slider(key="gen_k").value == 7
    assert at.slider(key="gen_temp").value == pytest.approx(1.5) and at.number_input(key="gen_seed").value == 42
    assert at.slider(key="gen_max_new").value == 6
    assert at.selectbox(key="gen_layer").value == 1 and at.selectbox(key="gen_head").value == 2
    assert title(chart(at, "gen_growth")).endswith("(L1 H2)")
    assert any(c.value.startswith("Step 6 of 6: 6 new tokens") or "stopped at [EOS]" in c.value for c in at.caption)
    assert not infos(at)
    assert at.query_params["gen_head"] == "H2" and at.query_params["gen_strategy"] == "top-k sampling"


def test_a_link_opens_beam_search_and_next_token_settings():
    at = open_link("generation.py", gen_tab="Beam search", beam_width="4", beam_len="5", beam_alpha="0.5")
    assert at.slider(key="beam_width").value == 4 and at.slider(key="beam_len").value == 5
    assert title(chart(at, "beam_tree")).startswith("Beam tree: width 4")
    assert at.dataframe[0].value["rank"].iloc[-1] == "greedy"
    at = open_link("generation.py", next_temp="2.0", next_top="7")
    assert at.slider(key="next_temp").value == pytest.approx(2.0)
    assert len(chart(at, "next_bars")["data"][0]["y"]) == 7
    assert title(chart(at, "next_bars")).endswith("T = 2")


def test_a_link_hides_the_fill_in_words_it_names():
    at = open_link("generation.py", gen_tab="Fill-in (encoder)", fill_text="the cat sat on the mat .",
                   fill_words=["the (2)", "mat"], fill_k="5")
    words = at.multiselect(key="fill_words")
    assert words.value == ["the (2)", "mat"] and "the" in words.options
    assert at.slider(key="fill_k").value == 5
    heads = [m.value for m in at.markdown if m.value.startswith("**[MASK]")]
    assert any("the word “the”" in h for h in heads) and any("the word “mat”" in h for h in heads)
    inputs = next(m.value for m in at.markdown if m.value.startswith("Input: "))
    assert inputs.count("`[MASK]`") == len(heads)
    assert at.query_params["fill_words"] == ["the (2)", "mat"]


def test_a_link_picks_the_objectives_pieces_by_what_they_read():
    at = open_link("generation.py", gen_tab="Objectives side by side", obj_text="the cat sat on the mat",
                   obj_masked=["␣cat", "␣mat"])
    picked = at.multiselect(key="obj_masked")
    assert picked.value == ["␣cat", "␣mat"] and picked.options[0] == "the"
    assert {m.label: m.value for m in at.metric}["Encoder loss terms"] == f"2 of {len(picked.options)}"


def test_stale_tab_head_word_and_numbers_in_a_generation_link():
    at = open_link("generation.py", gen_tab="Generate step by step", gen_head="H9", gen_layer="<b>L1</b>",
                   gen_k="500", gen_strategy="nucleus")
    shown = infos(at)
    assert stale("head", "H9", "mean of heads") in shown
    assert stale("layer", "\\<b\\>L1\\</b\\>", "L3") in shown
    assert stale("k", "500", "5") in shown and stale("the strategy", "nucleus", "greedy") in shown
    assert at.selectbox(key="gen_head").value == "mean of heads" and at.slider(key="gen_k").value == 5
    at = open_link("generation.py", gen_tab="Fill-in (encoder)", fill_words=["zebra", "mat"])
    assert "The link asked to pick the words “zebra”, “mat”, which are not on this page now; left unpicked." \
        in infos(at)
    at = open_link("generation.py", gen_tab="Poetry")
    assert stale("the tab", "Poetry", "Next token") in infos(at)


def test_html_and_100k_texts_in_a_generation_link():
    at = open_link("generation.py", gen_prompt=HTML)
    assert at.text_input(key="gen_prompt").value == HTML
    assert "&lt;img" in title(chart(at, "next_bars"))                    # the prompt in the title, escaped
    no_markup_injected(at, "<img", "<b>")
    at = open_link("generation.py", gen_prompt=LONG)
    clipped_and_unbound(at, "gen_prompt", "warning", "The text has 100,000 characters; only the first 2,000 are used.")
    at = open_link("generation.py", gen_tab="Fill-in (encoder)", fill_text=LONG)
    clipped_and_unbound(at, "fill_text", "warning", "The text has 100,000 characters; only the first 600 are used.")


# ---- translation (the shipped translator) --------------------------------------------------------------------------
def test_a_link_opens_translation_on_its_sentence_decoding_layer_head_and_tab():
    text = "where is the book ?"
    at = open_link("translation.py", tr_text=text, tr_method="beam search", tr_width="3", tr_layer="L0",
                   tr_head="H1", tr_tab="Alignment lines", tr_threshold="0.5")
    assert at.text_input(key="tr_text").value == text
    assert at.radio(key="tr_method").value == "beam search" and at.slider(key="tr_width").value == 3
    assert at.selectbox(key="tr_layer").value == 0 and at.selectbox(key="tr_head").value == 1
    assert at.slider(key="tr_threshold").value == pytest.approx(0.5)
    assert title(chart(at, "tr_alignment")) == "Alignment, L0 H1"
    assert any("beam search (width 3)" in c.value for c in at.caption)
    assert not infos(at)


def test_a_link_naming_an_example_brings_its_sentence_and_the_forced_target():
    from model.data import translation_corpus as corpus
    pair = corpus.examples()[1]
    at = open_link("translation.py", tr_example=pair.en)
    assert at.text_input(key="tr_text").value == pair.en and at.selectbox(key="tr_example").value == pair.en
    at = open_link("translation.py", tr_tab="Training vs inference", tr_forced="老师喜欢银行。")
    assert at.text_input(key="tr_forced").value == "老师喜欢银行。"
    table = at.dataframe[0].value
    assert list(table["should write"])[:6] == list("老师喜欢银行")


def test_stale_values_html_and_100k_text_in_a_translation_link():
    at = open_link("translation.py", tr_layer="L9", tr_head="H1", tr_tab="Dictionary", tr_width="0")
    shown = infos(at)
    assert stale("layer", "L9", "L2") in shown                         # the translator's last layer
    assert stale("the tab", "Dictionary", "Cross\\-attention") in shown and stale("beam width", "0", "4") in shown
    at = open_link("translation.py", tr_text="the <b>station</b>")
    assert at.text_input(key="tr_text").value == "the <b>station</b>"
    assert any("“\\<”" in i.value for i in at.info)                     # named as text, escaped
    no_markup_injected(at, "<b>")
    at = open_link("translation.py", tr_text=LONG)
    assert "The text has 100,000 characters; only the first 400 are used." in [w.value for w in at.warning]
    assert len(at.text_input(key="tr_text").value) == 400


# ---- image patches (the shipped ViT and Swin models) ----------------------------------------------------------------
def test_a_link_opens_the_image_page_on_its_model_sample_query_and_layer():
    at = open_link("images.py", img_model="ViT · which shape is red?", img_scene="scene_square_1",
                   img_query_vit_scenes="p5", img_layer="L0", img_all_heads="false")
    assert at.radio(key="img_model").value == "vit_scenes"
    assert at.selectbox(key="img_scene").value.stem == "scene_square_1"
    assert at.selectbox(key="img_query_vit_scenes").value == "p5" and at.select_slider(key="img_layer").value == 0
    assert at.toggle(key="img_all_heads").value is False
    assert "true answer for this sample is **square**" in " ".join(m.value for m in at.markdown)
    assert title(chart(at, "overlay_0")) == "L0 H0"
    assert any("of p5's attention" in c.value for c in at.caption)
    assert not infos(at)
    assert at.query_params["img_scene"] == "scene_square_1"


def test_stale_image_choices_in_a_link_give_notices_and_defaults():
    at = open_link("images.py", img_model="GPT-9", img_digit="digit_42_0", img_query_vit_digits="<script>x</script>",
                   img_layer="L8")
    shown = infos(at)
    assert stale("the model", "GPT\\-9", "ViT · handwritten digits") in shown
    assert stale("the sample", "digit\\_42\\_0", "digit\\_0\\_0") in shown
    assert stale("the token", "\\<script\\>x\\</script\\>", "\\<cls\\>") in shown
    assert any(i.startswith("The link asked for layer “L8”") for i in shown)
    assert at.selectbox(key="img_digit").value.stem == "digit_0_0"
    assert at.selectbox(key="img_query_vit_digits").value == "<cls>"
    at = open_link("images.py", img_source="Upload")
    assert any("a copied link opens this page on the upload box" in c.value for c in at.caption)


# ---- architecture ---------------------------------------------------------------------------------------------------
def test_a_link_opens_the_architecture_of_its_model_and_refuses_an_unknown_one():
    at = open_link("architecture.py", arch_model="translator")
    assert at.selectbox(key="arch_model").value == "translator"
    assert any(c.value.startswith("**translator**: encoder\\-decoder") for c in at.caption)
    first = sorted(checkpoints.shipped())[0]
    at = open_link("architecture.py", arch_model="<b>gpt-5</b>")
    assert stale("the model", "\\<b\\>gpt\\-5\\</b\\>", first.replace("_", "\\_")) in infos(at)
    assert at.selectbox(key="arch_model").value == first and "arch_model" not in at.query_params
