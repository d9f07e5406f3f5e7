"""Word-level attention from piece-level attention, checked against sums and means written out by hand."""
import numpy as np
import pytest

from model.tasks.word_attention import word_attention


def test_summed_over_key_pieces_and_averaged_over_query_pieces():
    # pieces: [CLS] ham sand ##wich [SEP]; words: [CLS] | ham | sandwich | [SEP]
    w = np.array([[0.1, 0.2, 0.3, 0.4, 0.0],
                  [0.0, 0.5, 0.25, 0.25, 0.0],
                  [0.2, 0.2, 0.2, 0.2, 0.2],
                  [0.0, 0.0, 0.6, 0.0, 0.4],
                  [1.0, 0.0, 0.0, 0.0, 0.0]])
    groups = [(0,), (1,), (2, 3), (4,)]
    got = word_attention(w, groups)
    sandwich_row = [(0.2 + 0.0) / 2, (0.2 + 0.0) / 2, (0.4 + 0.6) / 2, (0.2 + 0.4) / 2]
    np.testing.assert_allclose(got[2], sandwich_row)
    np.testing.assert_allclose(got[0], [0.1, 0.2, 0.7, 0.0])
    np.testing.assert_allclose(got.sum(-1), 1.0)


def test_one_piece_per_word_changes_nothing_and_leading_axes_are_kept():
    rng = np.random.default_rng(0)
    w = rng.random((2, 3, 6, 6))
    w /= w.sum(-1, keepdims=True)
    np.testing.assert_allclose(word_attention(w, [(i,) for i in range(6)]), w)


def test_a_word_without_pieces_is_refused():
    with pytest.raises(ValueError, match="at least one piece"):
        word_attention(np.eye(3), [(0,), ()])



def test_float32_for_display_matches_float64():
    rng = np.random.default_rng(1)
    w = rng.random((2, 3, 7, 7)).astype(np.float32)
    groups = [(0,), (1, 2, 3), (4,), (5, 6)]
    got = word_attention(w, groups, dtype=np.float32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, word_attention(w, groups), rtol=1e-6)


def test_a_runs_word_view_names_each_words_pieces_and_flags_an_unknown_piece():
    from model.tasks.results import TextRun
    from model.tasks.word_attention import word_view
    w = np.array([[0.1, 0.2, 0.3, 0.4, 0.0],                  # the hand-written matrix of the first test
                  [0.0, 0.5, 0.25, 0.25, 0.0],
                  [0.2, 0.2, 0.2, 0.2, 0.2],
                  [0.0, 0.0, 0.6, 0.0, 0.4],
                  [1.0, 0.0, 0.0, 0.0, 0.0]])[None, None]       # (1, 1, 5, 5)
    run = TextRun(tokens=("[CLS]", "ham", "sand", "##wich", "[SEP]"), ids=np.arange(5),
                  unknown=(False, False, False, True, False), weights=w, hidden=np.zeros((2, 5, 4)), logits=None,
                  words=((0,), (1,), (2, 3), (4,)), word_texts=("[CLS]", "ham", "sandwich", "[SEP]"))
    view = word_view(run)
    assert view.tokens == ("[CLS]", "ham", "sandwich", "[SEP]") and view.pieces[2] == ("sand", "##wich")
    assert view.unknown == (False, False, True, False) and (view.n_layers, view.n_heads) == (1, 1)
    np.testing.assert_allclose(view.weights[0, 0, 2], [0.1, 0.1, 0.5, 0.3], rtol=1e-6)
    assert view.weights.dtype == np.float32 and not view.weights.flags.writeable
