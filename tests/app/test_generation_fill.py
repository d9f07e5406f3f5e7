"""AppTest of the decoder & generation page's encoder tabs and the chain rule: the fill-in's top fillers, masks
typed or picked and their messages, the objectives' loss terms, the sentence probability as a sum of the shipped
decoder's log-probabilities; what was typed in a closed tab kept."""
import numpy as np
import pytest
import torch

from app_pages._markup import visible
from app_pages.views.generation import DEFAULT_PROMPT
from model.data import bpe, text_input
from tests.app import generation_page
from tests.app.conftest import plotly_array, plotly_chart
from tests.app.generation_page import NOTHING_MASKED, set_prompt, show, texts

at, gpt, encoder = generation_page.at, generation_page.gpt, generation_page.encoder   # the module's fixtures


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
