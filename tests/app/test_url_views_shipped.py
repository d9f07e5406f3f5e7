"""Every view in the URL (AppTest), for the generation, translation, image and architecture pages on their shipped
models: a fresh session opened on a link shows the same tab, settings, model, layer, head, picked words and image;
a stale link value opens with a notice and the default; HTML in a link stays text; a 100,000-character text in a
link gets the page's usual clipping notice and then leaves the link. What is asserted (widget values, figure
titles, counts) holds for any weights."""

import pytest

from model import checkpoints
from tests.app.conftest import infos, open_link
from tests.app.conftest import plotly_chart as chart
from tests.app.url_views import HTML, LONG, clipped_and_unbound, no_markup_injected, stale, title


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
