"""The training lab's figures from small arrays: the loss curve averaged in blocks beyond its point budget, the
crossing marks and the shown snapshot as lines, one score line per head."""
import numpy as np

from viz import lab


def test_a_long_loss_curve_is_averaged_in_blocks_of_steps():
    steps, values = lab.smoothed(np.arange(10.0), points=4)       # blocks of 3: steps 1-3, 4-6, 7-9, then 10
    assert steps.tolist() == [2, 5, 8, 10] and values.tolist() == [1, 4, 7, 9]
    steps, values = lab.smoothed([3.0, 2.0], points=4)
    assert steps.tolist() == [1, 2] and values.tolist() == [3, 2]


def test_the_loss_curve_marks_each_crossing_and_the_snapshot_shown():
    fig = lab.plot_loss([4.0, 3.5, 3.0, 2.0], marks={"induction > 0.5": 3}, current=2)
    assert [s.x0 for s in fig.layout.shapes] == [3, 2]
    assert [a.text for a in fig.layout.annotations] == ["induction > 0.5"]
    assert list(fig.data[0].y) == [4.0, 3.5, 3.0, 2.0]


def test_one_score_line_per_head_over_the_snapshots():
    table = np.random.default_rng(0).random((5, 2, 3))              # 5 snapshots, 2 layers × 3 heads
    fig = lab.plot_scores([0, 10, 20, 30, 40], table, name="induction", threshold=0.5)
    assert [t.name for t in fig.data] == ["L0 H0", "L0 H1", "L0 H2", "L1 H0", "L1 H1", "L1 H2"]
    assert np.allclose(fig.data[4].y, table[:, 1, 1]) and fig.layout.shapes[0].y0 == 0.5
