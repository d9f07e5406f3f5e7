"""AppTest of the translation page: it translates with the shipped model, draws target × source
cross-attention for every head, switches decoding, lists the translator's own word vocabularies and names
typed words outside them (they would be [UNK]) instead of translating."""

import re

import numpy as np
import pytest

from model import checkpoints
from model.data import translation_corpus as corpus
from model.data.word_tokenizer import SPECIALS
from model.tasks import translation as translate
from model.training.recipes import translator
from tests.app.conftest import infos, open_link, open_page
from tests.app.conftest import plotly_chart as chart
from tests.app.conftest import trace_z as z_of

DEFAULT = "the teacher likes the restaurant near the station ."


@pytest.fixture(scope="module")
def at():
    page = open_page("translation.py", timeout=120)
    assert not page.exception, [e.message for e in page.exception]
    return page


@pytest.fixture(scope="module")
def shipped():
    return translator.load()






def test_page_shows_the_models_translation_and_every_cross_attention_head(at, shipped):
    model, src_tok, tgt_tok = shipped
    expected = translate.run(model, src_tok, tgt_tok, DEFAULT)
    assert any(expected.output in m.value for m in at.markdown)
    heads = [t for t in chart(at, "tr_cross_grid")["data"] if t["type"] == "heatmap"]
    assert len(heads) == model.config.n_heads
    last = expected.cross_weights[-1]                # the page opens on the last layer
    for h, trace in enumerate(heads):
        np.testing.assert_allclose(z_of(trace), last[h], atol=1e-6)
    assert heads[0]["x"][-1].startswith(".") and len(heads[0]["y"]) == len(expected.written)


def test_training_and_inference_views_agree_on_the_models_own_output(at):
    at.session_state["tr_tab"] = "Training vs inference"           # lazy tabs: only the open one runs
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    info = [i.value for i in at.info if "max |difference|" in i.value]
    assert info and float(info[0].split("= ")[1].split(" ")[0]) < 1e-4
    assert len(at.dataframe) >= 2
    at.session_state["tr_tab"] = "Cross-attention"
    at.run()


def test_beam_search_of_width_one_gives_the_greedy_translation(at):
    greedy_text = next(m.value for m in at.markdown if m.value.startswith("## "))
    at.radio(key="tr_method").set_value("beam search").run()
    at.slider(key="tr_width").set_value(1).run()
    assert not at.exception
    assert next(m.value for m in at.markdown if m.value.startswith("## ")) == greedy_text
    assert any("beam search (width 1)" in c.value for c in at.caption)
    at.slider(key="tr_width").set_value(3).run()
    beams = at.dataframe[0].value
    assert 1 <= len(beams) <= 3 and list(beams["translation"])[0] in next(
        m.value for m in at.markdown if m.value.startswith("## "))
    at.radio(key="tr_method").set_value("greedy").run()


def test_picking_an_example_translates_it_and_says_how_it_was_held_out(at, shipped):
    pair = corpus.examples()[0]                          # the first held-out template
    at.selectbox(key="tr_example").set_value(pair.en).run()
    assert not at.exception
    assert at.text_input(key="tr_text").value == pair.en
    output = translate.run(shipped[0], shipped[1], shipped[2], pair.en).output
    verdict = "✓ exact match" if output == pair.zh else "✗ differs"
    assert any(f"held-out template, reference {pair.zh} {verdict}" in c.value for c in at.caption)


def unescaped(markdown: str) -> str:
    """Undo app_pages._markup.md: the page escapes Markdown punctuation ("\\." shows as ".")."""
    return re.sub(r"\\(.)", r"\1", markdown)


def vocabulary_box(at):
    return next(e for e in at.expander if e.label.startswith("Known words: "))


def test_page_says_the_translator_keeps_its_own_vocabularies_and_lists_every_word(at, shipped):
    _, src_tok, tgt_tok = shipped
    english = translate.known_words(src_tok)
    chinese = [c for c in tgt_tok.vocab if c not in SPECIALS]
    text = " ".join(m.value for m in at.markdown)
    assert "own word vocabularies" in text and "the one place in the app where [UNK] remains, by design" in text
    box = vocabulary_box(at)
    assert f"{len(english)} English words and {len(chinese)} Chinese characters" in box.label
    lines = {m.value.split(":** ")[0]: m.value.split(":** ")[1] for m in box.markdown}
    assert re.findall(r"`([^`]+)`", lines["**English (source)"]) == english
    assert re.findall(r"`([^`]+)`", lines["**Chinese (target)"]) == chinese
    assert "restaurant" in english and "餐" in chinese and "astronaut" not in english


@pytest.mark.parametrize("typed,named", [
    ("the astronaut likes the <b>moon</b>", ["/", "<", ">", "astronaut", "b", "moon"]),
    ("我喜欢 the station", ["喜", "我", "欢"]),
])
def test_words_outside_the_vocabulary_are_named_as_unk_and_not_translated(at, shipped, typed, named):
    _, src_tok, _ = shipped
    at.text_input(key="tr_text").set_value(typed).run()
    assert not at.exception and not at.error                          # a calm notice, not a red error box
    msg = next(unescaped(i.value) for i in at.info if "Each would be read as [UNK]" in i.value)
    assert msg.split(": ", 1)[1].split(". Each")[0] == ", ".join(f"“{w}”" for w in named)   # sorted, each once
    assert all(src_tok.index.get(w) is None for w in named)          # the named words really are outside
    assert "“the”" not in msg and "“station”" not in msg
    assert not at.get("plotly_chart")                                 # nothing is translated
    assert vocabulary_box(at).proto.expanded                          # the list of known words opens
    at.text_input(key="tr_text").set_value(DEFAULT).run()
    assert not any("[UNK]" in i.value for i in at.info)
    assert at.get("plotly_chart") and not vocabulary_box(at).proto.expanded


def test_capitals_are_read_as_the_lower_case_words_the_translator_knows(at, shipped):
    model, src_tok, tgt_tok = shipped
    at.text_input(key="tr_text").set_value("The Teacher likes the restaurant near the station .").run()
    assert not at.exception and not at.error
    assert any(m.value == f"## {translate.run(model, src_tok, tgt_tok, DEFAULT).output}" for m in at.markdown)
    at.text_input(key="tr_text").set_value(DEFAULT).run()


def test_the_log_probability_of_a_confident_translation_is_not_printed_as_minus_zero(at, shipped):
    """A near-certain greedy translation scores about -1e-05: four decimals printed "-0.0000"."""
    model, src_tok, tgt_tok = shipped
    run = translate.run(model, src_tok, tgt_tok, DEFAULT, None, "greedy", 1)
    caption = next(c.value for c in at.caption if "log-probability" in c.value)
    shown = caption.split("log-probability ")[1].split(" ")[0]
    assert shown != "-0.0000" and float(shown) == pytest.approx(run.score, rel=1e-3)


def test_a_chinese_link_names_the_example_in_quotes_and_the_decoding_in_chinese():
    """With lang=zh the example picker quotes each English sentence (the address holds the quoted label) and the
    decoding radio reads 贪心 / 束搜索: a link from the Chinese page opens the example and decoding it names."""
    pair = corpus.examples()[1]
    at = open_link("translation.py", lang="zh", tr_example=f"“{pair.en}”", tr_method="束搜索")
    assert at.text_input(key="tr_text").value == pair.en
    assert at.radio(key="tr_method").value == "beam search"
    assert at.selectbox(key="tr_example").options[0] == f"“{DEFAULT}”"
    assert not [i for i in infos(at) if i.startswith("链接要求")]
    assert at.title[0].value == "翻译：编码器-解码器的工作过程"


@pytest.mark.parametrize("lang,method", [("zh", "beam search"), ("en", "束搜索")])
def test_a_link_made_in_the_other_language_opens_the_decoding_it_names(lang, method):
    """The decoding radio's value is "beam search" however it is shown: a link holding its English label opened in
    Chinese, or its Chinese label opened in English, opens beam search without a stale-link notice."""
    at = open_link("translation.py", lang=lang, tr_method=method)
    assert at.radio(key="tr_method").value == "beam search"
    assert not [i for i in infos(at) if i.startswith(("链接要求", "The link asked"))]


ZH_EN = "Chinese → English"
TUTORIAL_MASK = np.tril(np.ones((5, 5), dtype=int))       # the tutorial's 5 × 5 mask over "<Begin> I have a cat"


def unnumbered(labels) -> list[str]:
    """Axis labels without the position the charts add to keep repeated tokens apart ("cat ·4" -> "cat")."""
    return [re.sub(r" ·\d+$", "", t) for t in labels]


@pytest.fixture(scope="module")
def zh_at():
    return open_link("translation.py", tr_dir=ZH_EN)


def test_the_chinese_direction_opens_on_the_tutorials_sentence_and_translates_it(zh_at):
    assert zh_at.radio(key="tr_dir").value == ZH_EN
    assert zh_at.text_input(key="tr_zh_text").value == "我有一只猫"
    assert any(m.value == "## i have a cat" for m in zh_at.markdown)
    assert any("the tutorial's example (§5.1), a training sentence, reference i have a cat ✓ exact match" in c.value
               for c in zh_at.caption)
    m = checkpoints.read_meta("translator_zh_en")["metrics"]
    held = (f"exact match {m['exact_match_heldout']:.1%}, BLEU {m['sacrebleu_heldout']:.2f} (sacreBLEU, on the "
            f"English side) on 740 sentences")
    assert any(held in c.value for c in zh_at.caption)
    heads = [t for t in chart(zh_at, "tr_cross_grid")["data"] if t["type"] == "heatmap"]
    assert unnumbered(heads[0]["x"]) == ["我", "有", "一", "只", "猫"] and unnumbered(heads[0]["y"])[-1] == "[EOS]"
    assert not [c for c in zh_at.caption if c.value.startswith("The tutorial's example (§5.1)")]


def test_the_decoder_tab_draws_the_tutorials_5_by_5_causal_mask(zh_at):
    zh_at.session_state["tr_tab"] = "Decoder masked self-attention"
    zh_at.run()
    assert not zh_at.exception, [e.message for e in zh_at.exception]
    mask = next(t for t in chart(zh_at, "tr_dec_mask")["data"] if t["type"] == "heatmap")
    assert np.array_equal(z_of(mask), TUTORIAL_MASK)
    assert unnumbered(mask["y"]) == unnumbered(mask["x"]) == ["[BOS]", "i", "have", "a", "cat"]
    assert any("[BOS] → i, i → have, have → a, a → cat, cat → [EOS]. 15 of the 25 cells may attend." in c.value
               for c in zh_at.caption)
    zh_at.session_state["tr_tab"] = "Cross-attention"
    zh_at.run()


def test_characters_outside_the_chinese_vocabulary_are_named_calmly_and_not_translated(zh_at):
    zh_at.text_input(key="tr_zh_text").set_value("我有一只熊猫").run()
    assert not zh_at.exception and not zh_at.error
    msg = next(unescaped(i.value) for i in zh_at.info if "Each would be read as [UNK]" in i.value)
    assert "the characters of its generated corpus, and these are not among them: “熊”." in msg
    assert not zh_at.get("plotly_chart")
    zh_at.text_input(key="tr_zh_text").set_value("我有一只猫").run()
    assert zh_at.get("plotly_chart")


def test_chinese_typed_in_the_english_box_points_to_the_other_direction(at):
    at.text_input(key="tr_text").set_value("我有一只猫").run()
    msg = next(unescaped(i.value) for i in at.info if "Each would be read as [UNK]" in i.value)
    assert msg.endswith("To translate Chinese, pick “Chinese → English” above.")
    at.text_input(key="tr_text").set_value(DEFAULT).run()
