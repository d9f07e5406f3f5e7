"""Why this weight (model/analysis/why_weight.py): the score of a cell taken apart into q_i,d·k_j,d terms sums, with
1/√d_k, to the score the model itself captured, and the softmax of the captured row gives the captured weights; a
masked cell says so. Known numbers first, then the shipped models' own runs."""
import functools

import numpy as np
import pytest

from model import checkpoints
from model.analysis.why_weight import decompose
from model.data import course_world as corpus
from model.data import text_input
from model.tasks.attention_run import run_text


def test_a_hand_made_cell_decomposes_into_known_terms():
    q = np.array([[1.0, 2.0], [0.0, 1.0]])
    k = np.array([[3.0, 4.0], [-1.0, 0.5]])
    scores = q @ k.T / np.sqrt(2)
    e = np.exp(scores - scores.max(1, keepdims=True))
    parts = decompose(q, k, scores, e / e.sum(1, keepdims=True), 0, 0, top=1)
    assert parts.products.tolist() == [3.0, 8.0] and parts.dot == 11.0
    assert parts.scale == pytest.approx(1 / np.sqrt(2)) and parts.rebuilt == pytest.approx(11 / np.sqrt(2))
    assert parts.top.tolist() == [1] and parts.rank == 1 and parts.allowed and abs(parts.bias) < 1e-12
    assert parts.softmax_check() < 1e-12


@functools.cache
def shipped_run(name: str):
    """The shipped model's captured run on the lecture paragraph, q, k, v and scores kept."""
    if name not in checkpoints.shipped():
        pytest.fail(f"{name} is not in assets/: `python -m model.train {name}`")
    model, meta = checkpoints.load(name)
    return run_text(model, text_input.tokenizer_of(meta), corpus.PARAGRAPH, text_input.rule_of(meta), qkv=True,
                    logits=False)


@pytest.mark.parametrize("name", ["coref_encoder", "general_gpt"])
def test_the_terms_sum_to_the_models_captured_scores_in_every_head(name):
    run = shipped_run(name)
    L, H, N, _ = run.scores.shape
    rng = np.random.default_rng(0)
    for layer in range(L):
        for h in range(H):
            i = int(rng.integers(1, N))
            j = int(rng.integers(0, i + 1))                           # allowed in a decoder too
            parts = decompose(run.q[layer, h], run.k[layer, h], run.scores[layer, h], run.weights[layer, h], i, j)
            assert parts.allowed
            assert parts.products.sum() / np.sqrt(run.q.shape[-1]) == pytest.approx(float(run.scores[layer, h, i, j]),
                                                                                    abs=2e-5)
            assert parts.softmax_check() < 1e-5
            assert parts.weight == pytest.approx(float(run.weights[layer, h, i, j]))


def test_a_future_key_of_the_decoder_is_masked():
    run = shipped_run("general_gpt")
    parts = decompose(run.q[0, 0], run.k[0, 0], run.scores[0, 0], run.weights[0, 0], 3, 7)
    assert not parts.allowed and parts.score == -np.inf and parts.weight == 0.0
    assert parts.rebuilt == pytest.approx(float(run.q[0, 0, 3] @ run.k[0, 0, 7]) / np.sqrt(run.q.shape[-1]), abs=1e-5)
