"""Every text page and tab runs the real pretrained model (minilm: post-LN, 6 layers × 12 heads, WordPiece, no
output layer over words) when the sidebar picks it."""
import re

import numpy as np
import pytest
import torch

from model import checkpoints
from model.data import text_input
from model.engine.ablation import ablating
from tests.app.conftest import open_link

TABS = [("explorer.py", "explorer_tab", t) for t in
        ("Head view", "Attends to & statistics", "Rollout", "Summaries", "Why this weight", "Value norms",
         "Queries & keys", "Downloads")]
TABS += [("masks.py", "masks_tab", "Live effect"), ("positional.py", "pos_tab", "Word order"),
         ("step_by_step.py", "steps_tab", "One head"), ("step_by_step.py", "steps_tab", "Multi-head"),
         ("step_by_step.py", "steps_tab", "The layer"), ("tokenization.py", None, None)]


@pytest.mark.parametrize("page, key, tab", TABS)
def test_the_page_runs_minilm(page, key, tab):
    at = open_link(page, text_model="minilm", **({key: tab} if key else {}))
    assert at.sidebar.selectbox(key="text_model").value == "minilm"
    assert not at.error, [e.value for e in at.error]


def test_the_explorer_shows_its_72_heads():
    at = open_link("explorer.py", text_model="minilm")
    assert any("model **minilm**, 6 layers × 12 heads" in e.label for e in at.expander)


def test_the_layer_tab_says_the_post_ln_layer_is_the_textbooks_as_trained():
    at = open_link("step_by_step.py", text_model="minilm", steps_tab="The layer")
    assert any("trained post-LN" in c.value for c in at.caption)


def test_ablation_reports_the_sentence_vector_moved_as_an_independent_forward_finds():
    text = "The animal didn't cross the street because it was too tired."
    at = open_link("explorer.py", text_model="minilm", explorer_text=text, explorer_tab="Ablation",
                   explorer_ablate="L5 H0", explorer_ablate_mode="zero")
    assert not at.error and not at.exception
    shown = next(m.value for m in at.markdown if m.value.startswith("**The sentence vector**"))
    cos = float(re.search(r"\*\*([0-9.]+)\*\*", shown.split("removal:")[1]).group(1))
    model, meta = checkpoints.load("minilm")
    ids = torch.tensor([text_input.encode(text_input.tokenizer_of(meta), text, "cls_sep").ids])
    with torch.no_grad():
        a = model.encode(ids).x[0].double().mean(0)
        with ablating({model.encoder.layers[5].self_attn: {0: None}}):
            b = model.encode(ids).x[0].double().mean(0)
    assert cos == pytest.approx(float(a @ b / (a.norm() * b.norm())), abs=1e-4)
    assert cos < 1.0 and not np.isclose(cos, 1.0, atol=1e-6)


def test_the_tokenization_page_names_minilm_s_wordpiece_and_starts_on_its_first_word():
    at = open_link("tokenization.py", tok_model="minilm", text_model="minilm")
    assert any("own WordPiece vocabulary (30,522 pieces" in c.value for c in at.caption)
    assert at.selectbox(key="tok_token").value == 1                # the first word, after [CLS] (id 101)
