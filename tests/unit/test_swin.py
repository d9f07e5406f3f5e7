"""Swin as published on tiny random models: the cyclic shift's mask against the offset windows of
model.engine.masks, windowed attention against the numpy reference over the whole grid, patch merging's
order, token counts per stage with no <cls>, no weight outside a window, and a checkpoint round trip."""
import numpy as np
import pytest
import torch

from model import checkpoints, reference
from model.architectures.swin import Swin, SwinBlock, SwinConfig
from model.architectures.windows import PatchMerging, full_matrix, shift_mask, window_tokens
from model.engine.capture import capturing
from model.engine.masks import swin_window_mask
from model.tasks.image_run import run_image

TINY = dict(image_size=8, channels=1, patch_size=1, n_classes=3, d_model=8, depths=(2, 2, 2), heads=(2, 2, 4),
            window=2, mlp_ratio=2)


def _model(**kw):
    torch.manual_seed(0)
    return Swin(SwinConfig(**{**TINY, **kw})).eval()


@pytest.mark.parametrize("grid,window,shift", [(4, 2, 1), (8, 2, 1), (6, 3, 1), (8, 4, 2), (8, 2, 0)])
def test_cyclic_shift_with_its_mask_is_the_offset_windows_of_the_masks_page(grid, window, shift):
    allowed = full_matrix(shift_mask(grid, window, shift), grid, window, shift)
    np.testing.assert_array_equal(allowed, swin_window_mask(grid, grid, window, shift))


def test_shift_mask_splits_the_wrapped_corner_window_into_single_tokens():
    # 4×4 grid rolled by one: the last window holds original rows {3, 0} × cols {3, 0}, four corners apart
    m = shift_mask(4, 2, 1)
    assert m[0].all() and np.array_equal(m[3], np.eye(4, dtype=bool))
    assert window_tokens(4, 2, 1)[3].tolist() == [15, 12, 3, 0]
    assert m[1].tolist() == [[True, False, True, False], [False, True, False, True]] * 2   # rows {1, 2} × cols {3, 0}


def test_shifted_window_attention_equals_the_reference_over_the_whole_grid():
    """One shifted block, its MLP switched off: x + proj(attention) where the reference attends over all 16
    tokens with the offset-window mask and the learned bias put at each pair's (Δrow, Δcol)."""
    torch.manual_seed(1)
    C, H, G, w, s = 8, 2, 4, 2, 1
    block = SwinBlock(C, H, G, w, s, mlp_ratio=2).eval()
    with torch.no_grad():
        block.attn.bias_table.normal_(0, 1.0)
        block.mlp.lin2.weight.zero_()
        block.mlp.lin2.bias.zero_()
    x = torch.randn(1, G, G, C)
    with torch.no_grad(), capturing():
        y, inter = block(x)
    X = reference.layer_norm(x[0].reshape(-1, C).numpy())
    qkv = block.attn.qkv
    Wq, Wk, Wv = (qkv.weight[i * C:(i + 1) * C].detach().numpy().T for i in range(3))
    bq, bk, bv = (qkv.bias[i * C:(i + 1) * C].detach().numpy() for i in range(3))
    table = block.attn.bias_table.detach().numpy()
    r, c = np.divmod(np.arange(G * G), G)
    dr, dc = r[:, None] - r[None, :], c[:, None] - c[None, :]
    mask = swin_window_mask(G, G, w, s)
    idx = np.where(mask, (dr + w - 1) * (2 * w - 1) + dc + w - 1, 0)
    bias = table[idx].transpose(2, 0, 1)                                      # (H, N, N)
    out, weights, _ = reference.multi_head_attention(
        X, Wq, Wk, Wv, block.attn.proj.weight.detach().numpy().T, H, bq, bk, bv,
        block.attn.proj.bias.detach().numpy(), mask=mask, bias=bias)
    np.testing.assert_allclose(y[0].reshape(-1, C).numpy(), x[0].reshape(-1, C).numpy() + out, atol=1e-5)
    np.testing.assert_allclose(inter.weights[0].numpy(), weights, atol=1e-6)


def test_patch_merging_concatenates_each_2x2_group_in_swins_order():
    torch.manual_seed(0)
    merge = PatchMerging(1).eval()
    grid = torch.tensor([[10.0 * r + c for c in range(4)] for r in range(4)])[None, :, :, None]   # (1, 4, 4, 1)
    with torch.no_grad():
        y = merge(grid)
    assert y.shape == (1, 2, 2, 2)
    W = merge.reduction.weight.detach().numpy()                              # (2, 4)
    for (i, j), group in {(0, 0): [0, 10, 1, 11], (0, 1): [2, 12, 3, 13], (1, 1): [22, 32, 23, 33]}.items():
        expected = W @ reference.layer_norm(np.array(group, dtype=np.float64))
        np.testing.assert_allclose(y[0, i, j].numpy(), expected, atol=1e-5)


def test_stages_have_four_times_fewer_tokens_no_cls_and_no_weight_outside_a_window():
    model = _model()
    image = np.random.default_rng(0).normal(size=(1, 8, 8)).astype(np.float32)
    run = run_image(model, image)
    assert "<cls>" not in run.tokens and len(run.tokens) == 64 and not run.has_cls
    assert [w.shape for w in run.weights] == [(2, 64, 64)] * 2 + [(2, 16, 16)] * 2 + [(4, 4, 4)] * 2
    assert run.stages == (0, 0, 1, 1, 2, 2) and run.grids == ((8, 8), (4, 4), (2, 2))
    assert [run.stage_patch_size(s) for s in range(3)] == [1, 2, 4]
    for w, m in zip(run.weights, run.masks):
        assert np.all(w[:, ~m] == 0) and np.all(w[:, m] > 0)
        np.testing.assert_allclose(w.sum(-1), 1, atol=1e-5)
    # windows of 2×2 tokens: 4 keys per query, shifted blocks cut the border windows smaller; the last stage
    # (2×2 tokens) is one window that is never shifted
    assert [int(m.sum(1).max()) for m in run.masks] == [4, 4, 4, 4, 4, 4]
    assert run.masks[0].sum() == 64 * 4 and run.masks[1].sum() < 64 * 4 and run.masks[5].all()
    with torch.no_grad():
        fast = model(torch.from_numpy(image)[None])                           # the fast path, no capture
    np.testing.assert_allclose(run.logits, fast[0].numpy(), atol=1e-5)


@pytest.mark.parametrize("kw,message", [
    (dict(depths=(2, 2), heads=(2, 2, 2)), "one entry per stage"),
    (dict(window=3), "does not tile stage 0"),                       # stages count from 0, like layers
    (dict(image_size=6, depths=(1, 1, 1), heads=(2, 2, 2)), "cannot be merged 2×2 2 times"),
    (dict(d_model=6, heads=(4, 2, 2)), "must split evenly across 4 heads"),
    (dict(depths=(2, 0, 2)), "each must be an integer from 1 to 12"),
])
def test_swin_config_refuses_what_cannot_be_built(kw, message):
    with pytest.raises(ValueError, match=message):
        SwinConfig(**{**TINY, **kw})


def test_checkpoint_round_trip(tmp_path):
    model = _model()
    checkpoints.save("tiny_swin", model, {"arch": "model.architectures.swin:Swin", "config": model.to_dict(),
                                          "modality": "image"}, tmp_path)
    back, meta = checkpoints.load("tiny_swin", tmp_path)
    assert type(back) is Swin and meta["config"]["depths"] == [2, 2, 2]
    x = torch.randn(2, 1, 8, 8)
    with torch.no_grad():
        torch.testing.assert_close(back(x), model(x))
