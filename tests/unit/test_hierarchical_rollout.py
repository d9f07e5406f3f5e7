"""Rollout through patch merging on cases whose answer is known by construction, and a training run that
is stopped and resumed from its checkpoint ending where an unbroken run ends."""
import numpy as np
import pytest
import torch

from model.analysis.attention_views import rollout
from model.analysis.hierarchical_rollout import hierarchical_rollout, pooled
from model.architectures.windows import merge_matrix
from model.training import checkpointed

GRIDS = (8, 4, 2)
STAGES = (0, 0, 1, 1, 2, 2)


def _identity(n, heads=2):
    return np.repeat(np.eye(n)[None], heads, axis=0)                          # (H, N, N)


def test_merge_matrix_gives_each_merged_token_a_quarter_of_its_2x2_group():
    m = merge_matrix(4)
    assert m.shape == (4, 16)
    assert np.flatnonzero(m[0]).tolist() == [0, 1, 4, 5] and np.flatnonzero(m[3]).tolist() == [10, 11, 14, 15]
    np.testing.assert_allclose(m.sum(1), 1)


def test_tokens_that_attend_only_to_themselves_roll_out_to_the_pixels_they_cover():
    """Identity attention mixes nothing: a last-stage token (2×2 grid, 4×4 pixels each) is 1/16 of each pixel
    of its own quarter of the image and 0 elsewhere; the pooled output is uniform, 1/64 everywhere."""
    weights = [_identity(g * g) for g in (8, 8, 4, 4, 2, 2)]
    rolled = hierarchical_rollout(weights, STAGES, GRIDS)
    assert [r.shape for r in rolled] == [(64, 64)] * 2 + [(16, 64)] * 2 + [(4, 64)] * 2
    last = rolled[-1].reshape(4, 8, 8)
    quarter = np.zeros((8, 8))
    quarter[4:, :4] = 1 / 16                                                  # token 2 = bottom-left
    np.testing.assert_allclose(last[2], quarter)
    np.testing.assert_allclose(pooled(rolled[-1]), np.full(64, 1 / 64))


def test_uniform_attention_inside_aligned_windows_then_a_merge():
    """One stage-1 block of 2×2 windows aligned with the merge groups, uniform inside each window: each token is
    ½ itself + ½ × ¼ of its window; after merging, a merged token is exactly ¼ on each pixel of its window."""
    g = 4
    win = (np.arange(g * g) // g // 2) * 2 + (np.arange(g * g) % g) // 2        # window id of each token
    uniform = (win[:, None] == win[None, :]) / 4.0
    rolled = hierarchical_rollout([uniform[None], None], (0, 1), (4, 2))
    np.testing.assert_allclose(rolled[0][5], 0.5 * np.eye(16)[5] + 0.5 * uniform[5])
    expected = np.zeros(16)
    expected[[0, 1, 4, 5]] = 0.25
    np.testing.assert_allclose(rolled[1][0], expected)                        # None: a block that mixes no tokens


def test_one_stage_is_plain_rollout():
    rng = np.random.default_rng(0)
    w = rng.random((3, 2, 9, 9))
    w /= w.sum(-1, keepdims=True)
    np.testing.assert_allclose(hierarchical_rollout(list(w), (0, 0, 0), (3,))[-1], rollout(w)[-1])


def test_a_stopped_run_resumed_from_its_checkpoint_ends_where_an_unbroken_run_ends(tmp_path, monkeypatch):
    x, y = torch.randn(40, 3), torch.randn(40, 1)

    def run(where, stop_at=None):
        torch.manual_seed(0)
        model = torch.nn.Linear(3, 1)

        def next_batch(step):
            if step == stop_at:
                raise KeyboardInterrupt
            idx = torch.from_numpy(np.random.default_rng(step).permutation(40)[:8])
            return x[idx], y[idx]

        checkpointed.fit("tiny", model, next_batch, lambda m, b: (((m(b[0]) - b[1]) ** 2).mean(), 8), 12, 0.05,
                         0.01, every_s=0.0, where=where)
        return model

    whole = run(tmp_path / "a")
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path / "b", stop_at=7)
    monkeypatch.setenv("ATTENTION_LAB_RESUME", "1")
    resumed = run(tmp_path / "b")
    torch.testing.assert_close(resumed.weight, whole.weight)
    torch.testing.assert_close(resumed.bias, whole.bias)
