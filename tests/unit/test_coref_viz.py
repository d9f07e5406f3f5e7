"""viz/coref.py on small arrays: arrows only where the weight is, labels escaped, ranking order,
a difference map centred on zero."""
import numpy as np
import pytest

from viz.coref import plot_arrows, plot_head_ranking, plot_pair_difference


def test_arrows_drawn_to_tokens_above_threshold_only():
    tokens = ["[CLS]", "the", "cafe", "<b>x</b>", "it", "[SEP]"]
    row = np.array([0.01, 0.02, 0.80, 0.15, 0.01, 0.01])
    fig = plot_arrows(tokens, 4, row, min_weight=0.05)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert len(lines) == 2                                   # cafe and <b>x</b>
    assert lines[-1].line.width > lines[0].line.width        # strongest drawn last and widest
    assert np.isclose(lines[-1].x[-1], fig.data[-1].x[2])    # ends on "cafe"
    text = fig.data[-1]
    assert "&lt;b&gt;x&lt;/b&gt;" in text.text[3] and "<b>" not in text.text[3]
    assert "weight 0.8000" in text.hovertext[2]


def test_arrows_mark_unknown_words_and_refuse_wrong_shapes():
    fig = plot_arrows(["a", "zorblax", "it"], 2, np.array([0.5, 0.4, 0.1]), unknown=[False, True, False])
    assert fig.data[-1].text[1] == "zorblax?" and "not in the vocabulary" in fig.data[-1].hovertext[1]
    with pytest.raises(ValueError, match="shape"):
        plot_arrows(["a", "b"], 0, np.ones(3) / 3)


def test_long_text_wraps_onto_more_lines():
    short = plot_arrows(["w"] * 5, 0, np.ones(5) / 5)
    long = plot_arrows(["word"] * 60, 0, np.ones(60) / 60)
    assert len(set(long.data[-1].y)) > 1 == len(set(short.data[-1].y))
    assert long.layout.height > short.layout.height


def test_head_ranking_is_sorted_and_highlights_the_chosen_head():
    acc = np.array([[0.2, 0.9], [0.5, 0.97]])
    fig = plot_head_ranking(acc, chosen=(1, 1), baselines={"nearest noun": 0.5})
    bar = fig.data[0]
    assert list(bar.y) == ["L1 H1", "L0 H1", "L1 H0", "L0 H0"]
    assert list(bar.x) == sorted(acc.ravel(), reverse=True)
    assert bar.marker.color[0] != bar.marker.color[1]
    assert len(fig.layout.shapes) == 1


def test_pair_difference_is_centred_on_zero():
    d = np.array([[0.5, -0.2], [0.1, 0.0]])
    fig = plot_pair_difference(d, tokens=["the", "cat"], row_labels=["L0 H0", "L0 H1"])
    hm = fig.data[0]
    assert hm.zmin == -0.5 and hm.zmax == 0.5
    assert list(hm.x) == ["the ·0", "cat ·1"]
