"""AppTest of the decoder & generation page against the shipped general_gpt and general_encoder (byte-level BPE):
any prompt, English or Chinese, the numbers on the page recomputed from the models, and the messages verbatim.
The fill-in, objectives and chain-rule tabs: test_generation_fill.py."""
import numpy as np
import pytest
import torch

from app_pages._markup import visible
from app_pages.views.generation import DEFAULT_PROMPT
from app_pages.views.generation_text import continuation, written
from model import checkpoints
from model.data import bpe, text_input
from model.tasks import generation as g
from tests.app import generation_page
from tests.app.conftest import plotly_array, plotly_chart
from tests.app.generation_page import EMPTY, generated, set_prompt, show, texts

at, gpt = generation_page.at, generation_page.gpt            # the module's fixtures


def test_page_renders_every_tab(at):
    assert at.title[0].value == "Decoder & generation"
    assert [t.label for t in at.tabs] == ["Next token", "Generate step by step", "Beam search",
                                          "Fill-in (encoder)", "Objectives side by side", "Sentence probability",
                                          "Learning from the prompt", "Logit lens"]
    drawn = {}
    for tab, chart in (("Next token", "next_bars"), ("Generate step by step", "gen_growth"),
                       ("Beam search", "beam_tree"), ("Fill-in (encoder)", "fill_bars_0"),
                       ("Objectives side by side", "obj_losses"), ("Sentence probability", "chain_bars"),
                       ("Learning from the prompt", "ic_strip"), ("Logit lens", "lens_map")):
        show(at, tab)
        drawn[tab] = [c.proto.id for c in at.get("plotly_chart")]
        assert plotly_chart(at, chart)["data"], tab
        assert not at.error and not at.warning
    assert "next_bars" not in str(drawn["Beam search"])                # lazy: a closed tab draws nothing
    show(at, "Next token")


def test_caption_describes_the_shipped_decoder_from_its_metadata(at, gpt):
    _, meta, _ = gpt
    c, m = meta["config"], meta["metrics"]
    caption = next(e.value for e in at.caption if e.value.startswith("Every number here"))
    assert f"`general_gpt`: a GPT-style decoder, {c['n_layers']} layers × {c['n_heads']} heads" in caption
    assert f"a context of {c['max_len']} pieces, byte-level BPE of {c['vocab_size']:,} tokens" in caption
    assert ("WordNet's glosses and examples, the World English Bible, the Jargon File, the Debian handbook, English "
            "fortune cookies, Chinese fortunes and poems") in caption                # docs/data-card.md's sources
    assert (f"Held-out perplexity {m['perplexity_heldout_real']:.1f} against "
            f"{m['bigram_perplexity_heldout_real']:.1f} for a bigram") in caption


def test_next_token_bars_are_the_models_probabilities(at, gpt):
    model, _, tok = gpt
    ids = text_input.encode(tok, at.text_input(key="gen_prompt").value, "bos").ids
    probs = g.next_token_probs(model, ids)
    bars = plotly_chart(at, "next_bars")["data"][0]
    shown = plotly_array(bars["x"])
    np.testing.assert_allclose(shown, np.sort(probs)[::-1][:len(shown)], rtol=1e-5)
    assert at.metric[0].value == visible(tok.piece(int(probs.argmax())))


def test_greedy_text_is_the_decoded_argmax_continuation(at, gpt):
    model, _, tok = gpt
    show(at, "Generate step by step")
    ids = text_input.encode(tok, DEFAULT_PROMPT, "bos").ids
    n_prompt = len(ids)
    with torch.inference_mode():                     # a plain loop, no cache: the argmax of a full recompute
        while len(ids) < n_prompt + 24 and ids[-1] != bpe.EOS:
            ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
    assert generated(at) == tok.decode(ids, skip_special=True)
    assert "[UNK]" not in " ".join(texts(at))


def test_written_keeps_spaces_outside_bold_and_escapes_typed_markup():
    assert written("The restaurant refused to serve me a", " man.") == \
        r"The restaurant refused to serve me a **man\.**"
    assert written("人生", "，不") == "人生\u200a**，不**"           # CommonMark opens ** before punctuation
    assert written("a *b*", " c\n\nd") == r"a \*b\* **c**" + "  \n  \n**d**"


def test_continuation_decodes_with_the_prompt():
    tok = bpe.load()
    ids = tok.encode("我有一只猫", bos=True).ids
    assert len(ids) > 6                                               # some characters are split into bytes
    assert continuation(tok, ids, len(tok.encode("我有", bos=True).ids)) == "一只猫"
    ids = tok.encode("I love you", bos=True).ids
    assert continuation(tok, ids, 3) == " you"


def test_a_chinese_prompt_is_continued_by_the_chinese_decoder_without_unknown_pieces(at, gpt):
    """Mostly Chinese: the page says it runs zh_gpt and writes zh_gpt's greedy continuation; switched back, it writes
    general_gpt's, read in the English BPE's bytes."""
    show(at, "Generate step by step")
    set_prompt(at, "床前明月光")
    assert not at.error and not at.warning
    assert any("runs **zh_gpt**" in i.value for i in at.info)
    assert any("trained on modern Chinese: Debian's Simplified-Chinese documentation and shoppers' product reviews"
               in c.value for c in at.caption)                                      # docs/data-card-zh.md's sources
    zh, zh_meta = checkpoints.load("zh_gpt")
    zh_tok = text_input.tokenizer_of(zh_meta)
    ids = text_input.encode(zh_tok, "床前明月光", "bos").ids
    assert generated(at) == zh_tok.decode(g.generate(zh, ids, 24, eos_id=bpe.EOS).ids, skip_special=True)
    assert generated(at).startswith("床前明月光")
    assert "[UNK]" not in " ".join(texts(at))
    at.toggle(key="keep_english_general_gpt").set_value(True).run()
    model, _, tok = gpt
    ids = text_input.encode(tok, "床前明月光", "bos").ids
    assert not any("runs **zh_gpt**" in i.value for i in at.info)
    assert generated(at) == tok.decode(g.generate(model, ids, 24, eos_id=bpe.EOS).ids, skip_special=True)
    at.toggle(key="keep_english_general_gpt").set_value(False).run()
    set_prompt(at, DEFAULT_PROMPT)


def test_top_k_with_k_1_shows_the_greedy_text(at):
    show(at, "Generate step by step")
    greedy = generated(at)
    at.radio(key="gen_strategy").set_value("top_k").run()
    at.slider(key="gen_k").set_value(1).run()
    at.number_input(key="gen_seed").set_value(3).run()
    assert not at.exception
    assert generated(at) == greedy
    at.slider(key="gen_k").set_value(20).run()
    at.slider(key="gen_temp").set_value(2.5).run()
    assert generated(at) != greedy
    at.radio(key="gen_strategy").set_value("greedy").run()


def test_step_buttons_move_the_attention_row(at):
    show(at, "Generate step by step")
    set_prompt(at, "I love")                                          # a continuation of several pieces
    last = at.select_slider(key="gen_step").value
    assert last == len(at.select_slider(key="gen_step").options) >= 2     # a new run opens at its last step
    n = len(plotly_array(plotly_chart(at, "gen_growth")["data"][0]["z"]))
    at.button(key="gen_back").click().run()
    assert at.select_slider(key="gen_step").value == last - 1
    z = plotly_array(plotly_chart(at, "gen_growth")["data"][0]["z"])
    assert z.shape == (n - 1, n - 1)                                   # one token fewer written
    at.button(key="gen_next").click().run()
    assert at.select_slider(key="gen_step").value == last
    set_prompt(at, DEFAULT_PROMPT)


def test_stepping_back_shows_no_token_written_after_that_step(at, gpt):
    """At step s the model has written s tokens: the sentence, the attention axes and the probability bars stop
    there (they used to show the whole continuation)."""
    model, _, tok = gpt
    show(at, "Generate step by step")
    ids = text_input.encode(tok, DEFAULT_PROMPT, "bos").ids
    n_prompt = len(ids)
    with torch.inference_mode():                     # greedy by a plain loop, as in the test above
        while len(ids) < n_prompt + 24 and ids[-1] != bpe.EOS:
            ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
    n_new = len(ids) - n_prompt
    back = min(3, n_new - 1)                         # the shipped model may end its answer after a few tokens
    assert back >= 1
    for _ in range(back):
        at.button(key="gen_back").click().run()
    step = at.select_slider(key="gen_step").value
    assert step == n_new - back
    assert generated(at) == tok.decode(ids[:n_prompt + step], skip_special=True)
    growth = plotly_chart(at, "gen_growth")
    assert growth["layout"]["xaxis"]["ticktext"] == [f"{visible(tok.piece(i))} ·{k}"
                                                     for k, i in enumerate(ids[:n_prompt + step])]
    assert plotly_array(growth["data"][0]["z"]).shape == (n_prompt + step, n_prompt + step)
    assert len(plotly_chart(at, "gen_step_probs")["data"][0]["x"]) == step
    assert any(c.value.startswith(f"Step {step} of {n_new}: ") and f"; {back} more after this step" in c.value
               for c in at.caption)
    at.select_slider(key="gen_step").set_value(n_new).run()


def test_beam_table_lists_width_beams_and_greedy(at, gpt):
    _, _, tok = gpt
    show(at, "Beam search")
    at.slider(key="beam_width").set_value(4).run()
    df = at.dataframe[0].value
    assert len(df) == 5 and df["rank"].iloc[-1] == "greedy"
    assert df["rank"].iloc[:4].tolist() == ["1", "2", "3", "4"]
    scores = df["score / n^α"].iloc[:4].astype(float).to_numpy()
    assert (np.diff(scores) <= 0).all()
    np.testing.assert_allclose(scores, df["Σ log p"].iloc[:4].astype(float), atol=1e-4)    # α = 0: the plain sum
    assert not any("[EOS]" in c or "[UNK]" in c for c in df["continuation"])
    at.slider(key="beam_width").set_value(3).run()
    assert not at.exception
    show(at, "Next token")


def test_beam_table_has_no_blank_cells_and_promises_green_only_when_a_beam_ended(at, gpt):
    model, _, tok = gpt
    show(at, "Beam search")
    at.slider(key="beam_alpha").set_value(1.0).run()
    df = at.dataframe[0].value
    assert not df.isna().any().any() and "None" not in df.astype(str).to_numpy()
    greedy = df[df["rank"] == "greedy"].iloc[0]
    ids = text_input.encode(tok, DEFAULT_PROMPT, "bos").ids
    n_prompt = len(ids)
    with torch.inference_mode():                     # greedy by a plain loop, up to the table's length or [EOS]
        while len(ids) < n_prompt + at.slider(key="beam_len").value and ids[-1] != bpe.EOS:
            ids.append(int(model(torch.tensor([ids]))[0, -1].argmax()))
    assert greedy["ended with [EOS]"] == ("yes" if ids[-1] == bpe.EOS else "no")
    n = len(ids) - n_prompt                                       # α = 1: Σ log p over the new pieces, per piece
    assert float(greedy["score / n^α"]) == pytest.approx(float(greedy["Σ log p"]) / n, abs=2e-4)
    assert set(df["ended with [EOS]"]) <= {"yes", "no"}
    tree = plotly_chart(at, "beam_tree")
    green = "#2ca02c" in str(tree["data"][-1]["marker"]["color"])
    title = tree["layout"]["title"]["text"]
    assert ("green = ended with [EOS]" in title) == green
    assert green or "no candidate ended with [EOS]" in title
    at.slider(key="beam_alpha").set_value(0.0).run()
    show(at, "Next token")


def test_too_long_and_empty_prompts_get_readable_errors(at, gpt):
    _, _, tok = gpt
    show(at, "Generate step by step")
    set_prompt(at, "the cat " * 100)
    n = len(tok.encode("the cat " * 100, bos=True).ids)
    message = (f"The prompt has {n} tokens; with 24 new tokens that is {n + 24}, past this model's 128 positions. "
               "Shorten the prompt or generate fewer tokens.")
    assert message in [e.value for e in at.error]
    set_prompt(at, "")
    for tab in ("Next token", "Generate step by step", "Beam search"):
        show(at, tab)
        assert [e.value for e in at.error] == [EMPTY], tab
    set_prompt(at, DEFAULT_PROMPT)
    assert not at.error
    show(at, "Next token")
