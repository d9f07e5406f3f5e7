"""DaViT on tiny random models: the channel attention's shapes and its equation against numpy, its maps ignore the
order of the positions (the channels' "sequence" is the whole image, a set), the blocks alternate spatial and
channel attention per stage, and the run hands channel maps beside the spatial ones."""
import numpy as np
import torch

from model import reference
from model.architectures.davit import ChannelAttention, DaViT, DaViTConfig
from model.engine.capture import capturing
from model.tasks.image_run import run_image

TINY = DaViTConfig(image_size=8, channels=1, patch_size=1, n_classes=3, d_model=8, depths=(1, 1, 1), heads=(2, 2, 4),
                   window=2, mlp_ratio=2)


def test_channel_attention_is_softmax_of_q_transposed_k_over_the_positions():
    torch.manual_seed(0)
    attn = ChannelAttention(8, groups=2).eval()
    x = torch.randn(1, 6, 8)                                                  # 6 positions, 8 channels
    with torch.no_grad():
        y, w = attn(x)
    assert w.shape == (1, 2, 4, 4) and y.shape == (1, 6, 8)
    X = x[0].numpy().astype(np.float64)
    qkv = X @ attn.qkv.weight.detach().numpy().T + attn.qkv.bias.detach().numpy()
    q, k = qkv[:, :8], qkv[:, 8:16]
    for g in range(2):
        cols = slice(4 * g, 4 * g + 4)
        expected = reference.softmax(q[:, cols].T @ k[:, cols] / np.sqrt(4))  # (4, 4): channel i over channel j
        np.testing.assert_allclose(w[0, g].numpy(), expected, atol=1e-5)
        np.testing.assert_allclose(w[0, g].sum(-1).numpy(), 1, atol=1e-6)


def test_channel_maps_do_not_depend_on_the_order_of_the_positions():
    torch.manual_seed(0)
    attn = ChannelAttention(8, groups=2).eval()
    x = torch.randn(1, 16, 8)
    perm = torch.randperm(16)
    with torch.no_grad():
        (y, w), (yp, wp) = attn(x), attn(x[:, perm])
    torch.testing.assert_close(w, wp)
    torch.testing.assert_close(y[:, perm], yp)                                  # outputs move with their positions


def test_stages_alternate_spatial_and_channel_blocks_and_the_run_keeps_both():
    torch.manual_seed(0)
    model = DaViT(TINY).eval()
    image = np.random.default_rng(0).normal(size=(1, 8, 8)).astype(np.float32)
    run = run_image(model, image)
    assert [None if w is None else w.shape for w in run.weights] == [(2, 64, 64), None, (2, 16, 16), None,
                                                                     (4, 4, 4), None]
    assert [None if w is None else w.shape for w in run.channel_weights] == [None, (2, 4, 4), None, (2, 8, 8),
                                                                             None, (4, 8, 8)]
    assert run.stages == (0, 0, 1, 1, 2, 2) and [h.shape for h in run.inputs][::2] == [(64, 8), (16, 16), (4, 32)]
    for w, m in zip(run.weights, run.masks):
        if w is not None:
            assert np.all(w[:, ~m] == 0)                                        # windows, never shifted
    assert all(shift == 0 for _, shift in run.windows)
    with torch.no_grad(), capturing():
        out = model.encode(torch.from_numpy(image)[None])
    with torch.no_grad():
        np.testing.assert_allclose(model.classify(out.x).numpy()[0], run.logits, atol=1e-5)
        np.testing.assert_allclose(model(torch.from_numpy(image)[None]).numpy()[0], run.logits, atol=1e-5)
