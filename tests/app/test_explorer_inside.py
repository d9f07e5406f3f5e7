"""The explorer's inside-a-head tabs and the coreference page's Head ablation tab (AppTest, shipped coref_encoder, the
lecture paragraph): each opens from a link on its picks, which stay in the URL, and shows the model's own numbers,
computed here without the page (the cloze answer with a head removed, the captured score of a cell)."""
import numpy as np
import pytest
import torch

from labels import head_label
from model import checkpoints
from model.data import course_world as corpus
from model.data import text_input
from model.engine.ablation import ablating
from model.tasks.attention_run import run_text
from tests.app.conftest import open_link
from tests.app.conftest import plotly_chart as chart

NAME = "coref_encoder"


@pytest.fixture(scope="module")
def shipped():
    if NAME not in checkpoints.shipped():
        pytest.fail(f"{NAME} is not in assets/: `python -m model.train {NAME}`")
    model, meta = checkpoints.load(NAME)
    tok = text_input.tokenizer_of(meta)
    return model, tok, run_text(model, tok, corpus.PARAGRAPH, "cls_sep", qkv=True, logits=False)


def _cloze_answer(model, run, pronoun: int, heads) -> str:
    """The earlier content word whose first piece the cloze head rates highest, heads zero-ablated."""
    from model.analysis.head_stats import antecedent_candidates
    words = list(run.word_texts)
    edits = {}
    for lay, h in heads:                               # two heads of one layer: one module, both heads zeroed
        edits.setdefault(model.encoder.layers[lay].self_attn, {})[h] = None
    with torch.inference_mode(), ablating(edits):
        x = model.encode(torch.tensor([run.ids.tolist()])).x
        logits = model.cloze_logits(x, torch.tensor([0]), torch.tensor([run.words[pronoun][0]]))[0]
    cands = antecedent_candidates(words, pronoun)
    return words[max(cands, key=lambda c: float(logits[run.ids[run.words[c][0]]]))]


def test_a_link_opens_the_ablation_and_the_answers_are_the_models(shipped):
    model, _tok, run = shipped
    at = open_link("explorer.py", explorer_tab="Ablation", explorer_ablate=["L0 H0", "L0 H3"])
    assert at.multiselect(key="explorer_ablate").value == ["L0 H0", "L0 H3"]
    assert at.radio(key="explorer_ablate_mode").value == "zero"
    assert at.query_params["explorer_ablate"] == ["L0 H0", "L0 H3"]
    answers = at.dataframe[-1].value
    it = run.word_texts.index("it")
    row = answers[answers.iloc[:, 0] == "it"].iloc[0]
    after = _cloze_answer(model, run, it, [(0, 0), (0, 3)])
    assert (row.iloc[1], row.iloc[2]) == (_cloze_answer(model, run, it, []), after)
    change = chart(at, "explorer_ablation_change")["data"][0]
    assert change["text"][0] == ["removed", "0.000", "0.000", "removed"]       # layer 0: removed or unchanged
    assert at.selectbox(key="explorer_ablate_look").value.startswith("L")        # a later head to compare


def test_a_clicked_cell_shows_the_models_captured_score(shipped):
    _model, _tok, run = shipped
    labels = [t.strip() for t in run.tokens]
    i, j = labels.index("it"), labels.index("restaurant")
    at = open_link("explorer.py", explorer_tab="Why this weight", explorer_layer="L3", explorer_head="H0",
                   explorer_why_q="it", explorer_why_k="restaurant")
    assert at.query_params["explorer_why_q"] == "it" and at.query_params["explorer_why_k"] == "restaurant"
    assert (at.selectbox(key="explorer_why_q").value, at.selectbox(key="explorer_why_k").value) == (i, j)
    shown = {m.label: m.value for m in at.metric}
    assert float(shown["score before softmax"]) == pytest.approx(float(run.scores[3, 0, i, j]), abs=1e-4)
    assert float(shown["weight after softmax"]) == pytest.approx(float(run.weights[3, 0, i, j]), abs=1e-4)
    dot = float(run.q[3, 0, i] @ run.k[3, 0, j])
    assert float(shown[f"q·k = Σ over {run.q.shape[-1]} dimensions"]) == pytest.approx(dot, abs=1e-3)
    products = chart(at, "explorer_why_products")["data"][0]["y"]
    assert np.sum(products) == pytest.approx(dot, abs=1e-3)


def test_value_norms_queries_keys_and_summaries_open_on_their_picks():
    at = open_link("explorer.py", explorer_tab="Queries & keys", explorer_qk_source="many sentences",
                   explorer_qk_align="false", explorer_qk_lines="10")
    assert at.radio(key="explorer_qk_source").value == "many" and at.toggle(key="explorer_qk_align").value is False
    lines = chart(at, "explorer_qk")["data"][0]
    assert len(lines["x"]) == 3 * 10
    at = open_link("explorer.py", explorer_tab="Summaries", explorer_summary="max over the heads of the layer",
                   explorer_sum_queries=["it", "they"])
    assert at.selectbox(key="explorer_summary").value == "max"
    assert len(at.multiselect(key="explorer_sum_queries").value) == 2
    at = open_link("explorer.py", explorer_tab="Value norms", explorer_norms_layer="L1")
    assert at.selectbox(key="explorer_norms_layer").value == 1
    share = chart(at, "explorer_norms_mixing")["data"][0]["y"]
    assert len(share) == 4 and all(0 < s < 1 for s in share)


def test_the_coreference_ablation_names_the_heads_the_answer_rests_on():
    from app_pages import _head_runs
    at = open_link("coreference.py", coref_tab="Head ablation")
    fx = _head_runs.coref_head_effects(NAME, "cpu", "zero")
    other, drop = fx.largest_other()
    said = " ".join(i.value for i in at.info)
    assert head_label(*fx.head) in said
    if drop >= 0.02:
        assert head_label(*other) in said
    table = at.dataframe[-1].value
    assert len(table) == fx.answer_without.size
    assert table.iloc[0, 1] == pytest.approx(fx.answer_without[0, 0])
