"""AppTest of the positional-encodings page: every claim it prints is a number computed on the page."""

import numpy as np
import pytest

from model import checkpoints
from model.analysis.shift import shift_matrix
from model.data import bpe
from tests.app.conftest import open_page
from tests.app.conftest import plotly_chart as chart
from tests.app.conftest import trace_z as z_of


@pytest.fixture(scope="module")
def at():
    page = open_page("positional.py", timeout=120)
    assert not page.exception, [e.message for e in page.exception]
    return page


def show(at, tab: str):
    """Open a tab (only the open tab runs) and rerun."""
    at.session_state["pos_tab"] = tab
    at.run()
    assert not at.exception, [e.message for e in at.exception]


def metric(at, prefix: str) -> float:
    return float(next(m.value for m in at.metric if m.label.startswith(prefix)))






def test_page_prints_the_identities_it_claims(at):
    show(at, "Similarity")
    assert metric(at, "Largest spread among pairs with the same offset") < 1e-9
    show(at, "Shift identity")
    assert metric(at, "Largest error over positions") <= 1e-9
    assert any("≤ 1e-9" in s.value for s in at.success)
    show(at, "Learned vs relative")
    assert metric(at, "RoPE: largest spread") < 1e-12
    assert metric(at, "Sinusoidal added to q, k") > 0.1


def test_only_the_open_tab_runs(at):
    show(at, "Waves")
    labels = [m.label for m in at.metric]
    assert not any(label.startswith(("Largest error", "RoPE")) for label in labels)
    assert any(c.value.startswith("PE(") for c in at.code)


def test_shift_matrix_follows_the_chosen_offset(at):
    show(at, "Shift identity")
    at.number_input(key="shift_k").set_value(37)
    at.selectbox(key="shift_d").select(64)
    at.run()
    assert not at.exception
    assert metric(at, "Largest error over positions") <= 1e-9
    z = z_of(chart(at, "shift_matrix")["data"][0])
    np.testing.assert_allclose(z, shift_matrix(37, 64)[:16, :16], atol=1e-12)


def test_waves_draw_one_line_per_chosen_dimension(at):
    show(at, "Waves")
    at.multiselect(key="pe_dims").set_value([0, 3, 64])
    at.run()
    traces = chart(at, "pe_waves")["data"]
    assert [t["name"] for t in traces] == ["dim 0 (sin)", "dim 3 (cos)", "dim 64 (sin)"]


def test_lookup_prints_the_formula_value(at):
    show(at, "Waves")
    at.number_input(key="pe_pos").set_value(50).run()
    at.number_input(key="pe_dim").set_value(3).run()
    assert any("PE(50, 3) = cos(50 / 10000^(2/128)) = " + f"{np.cos(50 / 10000 ** (2 / 128)):.12f}" in c.value
               for c in at.code)


def test_word_order_demo_on_the_shipped_encoder(at):
    show(at, "Word order")
    assert metric(at, "Output, positions off") < 1e-4
    assert metric(at, "Attention, positions off") < 1e-5
    assert metric(at, "Output, positions on") > 0.05
    at.text_input(key="order_b").set_value("The woman ate the dog.").run()
    assert any("same words" in e.value for e in at.error)
    at.text_input(key="order_b").set_value("The raccoon ate the woman.").run()
    assert not at.error


def test_an_empty_sentence_asks_for_one_instead_of_counting_tokens(at):
    """An emptied box used to be reported as a word-count mismatch ("the first 2 tokens": [CLS] and [SEP])."""
    show(at, "Word order")
    at.text_input(key="order_a").set_value("  ").run()
    assert not at.exception and not at.error
    assert any("Type a sentence in both boxes" in i.value for i in at.info)
    at.text_input(key="order_a").set_value("The woman ate the raccoon.").run()
    assert not at.error and metric(at, "Output, positions on") > 0.05


def test_positions_past_the_learned_table_are_a_warning_not_an_error(at):
    """A learned table ending at max_len is the lesson, not a fault: a yellow warning, never a red error."""
    show(at, "Beyond max_len")
    max_len = checkpoints.read_meta("coref_encoder")["config"]["max_len"]
    at.number_input(key="len_pos").set_value(max_len + 5).run()
    assert (f"coref_encoder: its learned table stops at max_len = {max_len} (positions 0..{max_len - 1}). Position "
            f"{max_len + 5:,} has no vector; text longer than {max_len} tokens is cut to the first {max_len}."
            in [w.value for w in at.warning])
    assert not at.error
    at.number_input(key="len_pos").set_value(max_len - 1).run()
    assert not any("coref_encoder: its learned table stops" in w.value for w in at.warning)


def test_length_check_counts_the_tokens_each_kind_of_model_reads(at):
    """An encoder reads [CLS] pieces [SEP]; the decoder general_gpt reads [BOS] pieces (once counted as an encoder)."""
    show(at, "Beyond max_len")
    text = "the cafe sold the soup ."
    tok = bpe.load()
    n_enc, n_dec = len(tok.encode(text, add_cls_sep=True).ids), len(tok.encode(text, bos=True).ids)
    assert (n_enc, n_dec) == (10, 9)                 # [CLS] 8 pieces [SEP]; [BOS] 8 pieces
    at.text_area(key="len_text").set_value(text).run()
    assert any(s.value.startswith(f"{n_enc} tokens: within coref_encoder's 128") for s in at.success)
    at.session_state["text_model"] = "general_gpt"
    at.run()
    assert any(s.value.startswith(f"{n_dec} tokens: within general_gpt's 128") for s in at.success)
    at.session_state["text_model"] = "coref_encoder"
    at.run()


def test_learned_tables_of_shipped_image_models_are_drawn_on_their_patch_grid(at):
    # the ViTs: Swin and DaViT have no absolute positions, ImageGPT's are not drawn on a patch grid
    images = [n for n in checkpoints.shipped() if checkpoints.read_meta(n).get("modality") == "image"
              and checkpoints.read_meta(n)["arch"].endswith(":ViT")]
    assert images, "no shipped image model: python -m model.train vit_digits"
    show(at, "Learned vs relative")
    at.selectbox(key="learned_model").select(images[0]).run()
    assert not at.exception
    c = checkpoints.read_meta(images[0])["config"]
    side = c["image_size"] // c["patch_size"]
    assert z_of(chart(at, "learned_grid")["data"][0]).shape == (side, side)
    assert z_of(chart(at, "learned_table")["data"][0]).shape[0] == side * side + 1      # <cls> + patches
