"""Queries and keys in one picture (model/analysis/qk_projection.py): one projection for both, exact where the
vectors lie in a plane, an alignment that changes no softmax row, and the strongest pairs; the summaries of
model/analysis/summaries.py on matrices whose answer is known."""
import numpy as np
import pytest
import torch

from model.analysis import qk_projection as qk
from model.analysis.summaries import combined_rows, summarise
from model.data.word_tokenizer import WordTokenizer
from model.engine.config import preset
from model.engine.transformer import Transformer
from model.tasks.attention_run import run_text


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_vectors_in_a_plane_keep_every_distance_under_one_projection():
    rng = np.random.default_rng(0)
    basis = np.linalg.qr(rng.standard_normal((8, 2)))[0]             # a random plane in 8 dimensions
    q2, k2 = rng.standard_normal((6, 2)), rng.standard_normal((5, 2)) + 3.0
    proj = qk.project(q2 @ basis.T, k2 @ basis.T, align=False)
    both, shown = np.vstack([q2, k2]), np.vstack([proj.queries, proj.keys])
    dist = lambda x: np.linalg.norm(x[:, None] - x[None], axis=-1)     # noqa: E731
    np.testing.assert_allclose(dist(shown), dist(both), atol=1e-10)
    assert proj.explained.sum() == pytest.approx(1.0)


def test_alignment_changes_no_softmax_row_and_matches_the_means_and_lengths():
    rng = np.random.default_rng(1)
    q, k = rng.standard_normal((5, 4)), 2.0 + 3.0 * rng.standard_normal((7, 4))
    qa, ka, c, shift = qk.aligned(q, k)
    np.testing.assert_allclose(_softmax(qa @ ka.T), _softmax(q @ k.T), atol=1e-12)
    np.testing.assert_allclose(qa.mean(0) / c, ka.mean(0) * c, atol=1e-12)          # one centre before scaling
    np.testing.assert_allclose(np.linalg.norm(qa, axis=1).mean(), np.linalg.norm(ka, axis=1).mean(), rtol=1e-12)
    np.testing.assert_allclose((k + shift).mean(0), q.mean(0), atol=1e-12)


def test_strongest_pairs_are_the_largest_weights_in_order():
    w = np.array([[0.1, 0.9, 0.0], [0.5, 0.2, 0.3]])
    assert qk.strongest_pairs(w, 3).tolist() == [[0, 1, 0.9], [1, 0, 0.5], [1, 2, 0.3]]
    assert qk.strongest_pairs(w, 0).shape == (0, 3)


def test_sentences_read_alone_match_each_texts_own_run():
    torch.manual_seed(0)
    texts = ["the cat sat on the mat .", "a dog ran ."]
    tok = WordTokenizer.build(texts)
    model = Transformer(preset("tiny", len(tok))).eval()
    many = qk.sentences_qk(model, tok, "cls_sep", texts, 1, 0)
    for i, text in enumerate(texts):
        alone = run_text(model, tok, text, "cls_sep", qkv=True, logits=False)
        np.testing.assert_allclose(many.q[i], alone.q[1, 0], atol=1e-5)
        np.testing.assert_allclose(many.k[i], alone.k[1, 0], atol=1e-5)
        np.testing.assert_allclose(many.weights[i], alone.weights[1, 0], atol=1e-5)


def test_summaries_on_known_matrices():
    eye, flat = np.eye(3), np.full((3, 3), 1 / 3)
    w = np.stack([np.stack([eye, flat]), np.stack([flat, flat])])    # (L=2, H=2, 3, 3)
    np.testing.assert_allclose(summarise(w, "mean", 0), (eye + flat) / 2)
    np.testing.assert_allclose(summarise(w, "max", 0), np.maximum(eye, flat))
    np.testing.assert_allclose(summarise(w, "all_mean", 0), (eye + 3 * flat) / 4)
    np.testing.assert_allclose(summarise(w, "rollout", 1).sum(-1), 1.0)
    np.testing.assert_allclose(combined_rows(w, [0, 2])[0, 0], [0.5, 0.0, 0.5])
    with pytest.raises(ValueError, match="at least one"):
        combined_rows(w, [])
