"""AppTest of the decoder & generation page against the shipped general_gpt and general_encoder (byte-level BPE):
any prompt, English or Chinese, the numbers on the page recomputed from the models, and the messages verbatim."""
import re

import numpy as np
import pytest
import torch

from app_pages._markup import visible
from app_pages.views.generation import DEFAULT_PROMPT
from app_pages.views.generation_text import continuation, written
from model import checkpoints
from model.data import bpe, text_input
from model.tasks import generation as g
from tests.app.conftest import open_page, plotly_array, plotly_chart

EMPTY = "The prompt is empty: type at least one word."
NOTHING_MASKED = "Nothing is masked: type [MASK] or <mask> in the text, or pick a word to hide."


@pytest.fixture(scope="module")
def at():
    at = open_page("generation.py", timeout=120)
    assert not at.exception, at.exception
    return at


@pytest.fixture(scope="module")
def gpt():
    model, meta = checkpoints.load("general_gpt")
    return model, meta, bpe.load()


@pytest.fixture(scope="module")
def encoder():
    model, _ = checkpoints.load("general_encoder")
    return model


def generated(at) -> str:
    """The generated text (the page's first markdown) as a person reads it: bold marks, hair spaces, hard breaks
    and escapes undone."""
    md = at.markdown[0].value
    return re.sub(r"\\(.)", r"\1", md.replace("**", "").replace("\u200a", "").replace("  \n", "\n"))


def texts(at) -> list[str]:
    return [e.value for kind in ("markdown", "caption", "error", "warning", "info", "metric")
            for e in getattr(at, kind)]


def show(at, tab: str):
    """Open a tab (the tabs are lazy: only the open one runs) and rerun."""
    at.session_state["gen_tab"] = tab
    at.run()
    assert not at.exception, [e.message for e in at.exception]


def set_prompt(at, text):
    at.text_input(key="gen_prompt").set_value(text).run()
    assert not at.exception, [e.message for e in at.exception]


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
    assert "WordNet's glosses and examples, English fortune cookies, Chinese fortunes and poems" in caption
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


def test_an_empty_prompt_keeps_the_fill_in_and_objectives_tabs(at):
    """Emptying the prompt used to stop the page before the tabs, so Streamlit dropped every widget in them:
    the fill-in text and the objectives picks were reset once the prompt came back. The tabs are lazy now: what
    was typed in a closed tab is kept for the session (persist_state)."""
    show(at, "Fill-in (encoder)")
    at.text_input(key="fill_text").set_value("the <mask> crossed the street .").run()
    show(at, "Next token")
    set_prompt(at, "   ")
    show(at, "Fill-in (encoder)")
    assert at.text_input(key="fill_text").value == "the <mask> crossed the street ."
    assert plotly_chart(at, "fill_bars_0")["data"][0]["type"] == "bar"     # the encoder still fills in
    show(at, "Objectives side by side")
    assert plotly_chart(at, "obj_losses")["data"]                          # and the objectives are drawn
    assert not any(t.key == "gen_prompt" for t in at.text_input)           # no prompt box where none is read
    show(at, "Next token")
    set_prompt(at, DEFAULT_PROMPT)
    show(at, "Fill-in (encoder)")
    assert at.text_input(key="fill_text").value == "the <mask> crossed the street ."


def test_fill_in_a_typed_mask_shows_the_encoders_top_fillers(at, encoder):
    tok = bpe.load()
    show(at, "Fill-in (encoder)")
    text = "The <mask> pulled into the station."
    at.text_input(key="fill_text").set_value(text).run()
    ids = tok.encode(text, add_cls_sep=True, masks=True).ids
    pos = ids.index(bpe.MASK)
    with torch.inference_mode():
        logits = encoder.lm_head(encoder.encode(torch.tensor([ids])).x)[0, pos].double()
        logits[:len(bpe.SPECIALS)] = float("-inf")
        best = torch.softmax(logits, -1).topk(at.slider(key="fill_k").value)
    bars = plotly_chart(at, "fill_bars_0")["data"][0]
    np.testing.assert_allclose(plotly_array(bars["x"]), best.values.numpy(), rtol=1e-5)
    assert bars["customdata"] == [visible(tok.piece(i)) for i in best.indices.tolist()]
    assert any(m.value == f"**[MASK] ·{pos}** · typed mask" for m in at.markdown)
    z = plotly_array(plotly_chart(at, "fill_attn_0")["data"][0]["z"])
    assert z.shape == (16, len(ids))                                  # 4 layers × 4 heads, every piece
    assert "fill_bars_1" not in str([c.proto.id for c in at.get("plotly_chart")])


@pytest.mark.parametrize("typed", ["<MASK>", "[mask]"])
def test_fill_in_reads_a_mask_typed_in_capitals_or_lower_case(at, typed):
    """A learner typing <MASK> (or [mask]) means the mask token: it is filled in, not read as the letters
    M, A, S, K; and the encoder's byte-level pieces leave no word unknown ([UNK] never appears)."""
    show(at, "Fill-in (encoder)")
    at.text_input(key="fill_text").set_value(f"The {typed} pulled into the station. 我有一只猫 😀").run()
    assert not at.error and not at.exception
    inputs = next(m.value for m in at.markdown if m.value.startswith("Input: "))
    assert inputs.count("`[MASK]`") == 1 and "`[UNK]`" not in inputs
    assert any(m.value.endswith("typed mask") for m in at.markdown)
    at.text_input(key="fill_text").set_value("The <mask> pulled into the station.").run()


def test_hiding_a_word_of_several_pieces_masks_each_piece(at):
    tok = bpe.load()
    show(at, "Fill-in (encoder)")
    at.text_input(key="fill_text").set_value("The restaurants were busy.").run()
    n = len(tok.encode("restaurants").ids)
    assert at.multiselect(key="fill_words").options == ["The", "restaurants", "were", "busy", "."]   # by word
    at.multiselect(key="fill_words").set_value(["restaurants"]).run()
    assert not at.error
    heads = [m.value for m in at.markdown if m.value.startswith("**[MASK]")]
    assert len(heads) == n > 1
    first = visible(tok.piece(tok.encode("restaurants").ids[0]))
    assert heads[0].startswith(f"**[MASK] ·2** · hides “{first}”, piece 1 of {n} of the word “restaurants”: p = ")
    assert all(plotly_chart(at, f"fill_bars_{m}") for m in range(n))
    at.multiselect(key="fill_words").set_value([]).run()


def test_fill_in_messages_and_typed_special_tokens(at):
    tok = bpe.load()
    show(at, "Fill-in (encoder)")
    at.text_input(key="fill_text").set_value("The station was busy.").run()
    assert [e.value for e in at.error] == [NOTHING_MASKED]
    long = "a " * 130 + "<mask>"
    at.text_input(key="fill_text").set_value(long).run()
    n = len(tok.encode(long, add_cls_sep=True, masks=True).ids)
    assert n > 128
    assert [e.value for e in at.error] == [f"The text is {n} pieces long with [CLS] and [SEP]; this encoder reads "
                                           "at most 128. Shorten it."]
    at.text_input(key="fill_text").set_value("[CLS] The <mask> [SEP]").run()
    assert not at.error
    inputs = next(m.value for m in at.markdown if m.value.startswith("Input: "))
    assert inputs.count("`[CLS]`") == 1 and inputs.count("`[MASK]`") == 1 and "`C`" in inputs     # typed: text
    assert len([m for m in at.markdown if m.value.startswith("**[MASK]")]) == 1
    at.text_input(key="fill_text").set_value("The <mask> pulled into the station.").run()


def test_objectives_count_loss_terms_and_use_both_models_losses(at, gpt, encoder):
    from model.training.objectives import causal_token_losses, masked_token_losses
    model, _, tok = gpt
    show(at, "Objectives side by side")
    ids = tok.encode(at.text_input(key="obj_text").value).ids
    labels = at.multiselect(key="obj_masked").options
    assert len(labels) == len(ids)
    at.multiselect(key="obj_masked").set_value([labels[1], labels[3], labels[4]]).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Encoder loss terms"] == f"3 of {len(ids)}"
    assert metrics["Decoder loss terms"] == f"{len(ids)} of {len(ids)}"
    clm = causal_token_losses(model, [bpe.BOS, *ids])
    assert metrics["Decoder mean loss (nats)"] == f"{clm.mean():.3f}"
    rows = plotly_array(plotly_chart(at, "obj_losses")["data"][0]["z"]).reshape(2, -1)
    np.testing.assert_allclose(rows[1], clm, rtol=1e-4)
    mlm = masked_token_losses(encoder, [bpe.CLS, *ids, bpe.SEP], [2, 4, 5])
    np.testing.assert_allclose(rows[0][[1, 3, 4]], mlm, rtol=1e-4)
    assert np.isnan(np.delete(rows[0], [1, 3, 4])).all()


def test_a_new_objectives_sentence_gets_a_fresh_15_percent(at):
    show(at, "Objectives side by side")
    at.text_input(key="obj_text").set_value("我有一只猫，它很可爱。").run()
    assert not at.exception and not at.error
    picked, labels = at.multiselect(key="obj_masked").value, at.multiselect(key="obj_masked").options
    assert len(picked) == max(1, round(0.15 * len(labels))) and set(picked) <= set(labels)


def test_the_chain_rule_tab_shows_the_models_factors_and_their_sum(at, gpt):
    from app_pages.views.chain_rule import DEFAULTS, power_of_ten
    show(at, "Sentence probability")
    model, meta, _tok = gpt
    tok = text_input.tokenizer_of(meta)
    metrics = {m.label: m.value for m in at.metric}
    for side, text in DEFAULTS.items():
        ids = text_input.encode(tok, text, "bos").ids
        with torch.no_grad():                                          # Σ ln Pr(t_i | t_<i), written out here
            logp = torch.log_softmax(model(torch.tensor([ids]))[0].double(), -1)
        total = float(sum(logp[i, ids[i + 1]] for i in range(len(ids) - 1)))
        assert metrics[f"ln Pr(sentence {side})"] == f"{total:.2f}"
        assert metrics[f"Pr(sentence {side})"] == power_of_ten(total)
    bars = plotly_chart(at, "chain_bars")["data"]
    assert [len(plotly_array(b["y"])) for b in bars] == [len(text_input.encode(tok, t, "plain").ids)
                                                          for t in DEFAULTS.values()]
    assert any("Sentence A is" in t for t in texts(at))                 # the grammatical one wins
    show(at, "Next token")


def test_power_of_ten_reads_like_a_textbook():
    from app_pages.views.chain_rule import power_of_ten
    assert power_of_ten(-40.1) == "3.8 × 10⁻¹⁸"                         # e^−40.1 = 3.85e-18
    assert power_of_ten(np.log(0.0123)) == "0.0123"
    assert power_of_ten(np.log(9.96e-7)) == "1.0 × 10⁻⁶"
