"""The blocked sliding-window kernel equals dense masked attention (forward and backward) for every
pattern it supports; the sparse model's fast path equals its captured path; cost measurements are sane;
the sparse_encoder recipe's held-out batch, loss and accuracy do what they state, and the shipped model
reads BPE and reproduces its stated metrics."""
import math
from pathlib import Path

import numpy as np
import pytest
import torch

from model.analysis import cost
from model.architectures.sparse_encoder import SparseTransformer
from model.engine import masks
from model.engine.capture import capturing
from model.engine.config import ModelConfig
from model.engine.sparse import SlidingWindow, sliding_window_attention
from model.engine.transformer import Transformer
from runtime import job_queue

ROOT = Path(__file__).resolve().parents[2]


def dense_reference(q, k, v, allowed: np.ndarray):
    """float64 softmax(QKᵀ/√d)V with blocked scores at -inf."""
    s = q.double() @ k.double().transpose(-1, -2) / math.sqrt(q.shape[-1])
    s = s.masked_fill(~torch.from_numpy(allowed), float("-inf"))
    return torch.softmax(s, -1) @ v.double()


CASES = [  # (N, width, block, dilation, n_global)
    (300, 16, 64, 1, 0), (256, 16, 64, 1, 0), (131, 7, 16, 1, 0), (50, 128, 64, 1, 0),
    (240, 5, 32, 2, 0), (333, 4, 16, 3, 0), (300, 16, 64, 1, 8), (257, 9, 32, 1, 1), (40, 3, 16, 1, 40),
]


@pytest.mark.parametrize("n,w,blk,dil,g", CASES)
@pytest.mark.parametrize("chunk", [0, 3])
def test_kernel_equals_dense_masked_attention(n, w, blk, dil, g, chunk):
    torch.manual_seed(n + w)
    q, k, v = (torch.randn(2, 3, n, 16) for _ in range(3))
    allowed = masks.extra_global_tokens(n - g, g, w) if g else masks.dilated_window(n, w, dil)   # N counts the g
    out = sliding_window_attention(q, k, v, w, blk, dil, g, chunk_elems=chunk * blk * (blk + 2 * w))
    assert out.shape == q.shape and not torch.isnan(out).any()
    assert (out.double() - dense_reference(q, k, v, allowed)).abs().max() <= 1e-5


def test_sliding_window_object_states_its_mask():
    """Its n positions include the g global ones: as extra global tokens, g added in front of n - g text tokens
    (sparse_encoder's [CLS]); the same matrix as choosing the first g of n tokens."""
    assert np.array_equal(SlidingWindow(3, n_global=2).mask(20), masks.extra_global_tokens(18, 2, 3))
    assert np.array_equal(SlidingWindow(3, n_global=2).mask(20), masks.global_tokens(20, (0, 1), 3))
    assert SlidingWindow(3, n_global=2).mask(20).shape == (20, 20)
    assert np.array_equal(SlidingWindow(2, dilation=3).mask(21), masks.dilated_window(21, 2, 3))


@pytest.mark.parametrize("g,dil", [(0, 1), (4, 1), (0, 2)])
def test_kernel_gradients_equal_dense_masked_gradients(g, dil):
    torch.manual_seed(g + dil)
    n, w = 200, 12
    q, k, v = (torch.randn(1, 2, n, 8, dtype=torch.float64, requires_grad=True) for _ in range(3))
    allowed = masks.extra_global_tokens(n - g, g, w) if g else masks.dilated_window(n, w, dil)
    grads = []
    for fn in (lambda: sliding_window_attention(q, k, v, w, 32, dil, g, chunk_elems=32 * 56 * 2),
               lambda: dense_reference(q, k, v, allowed)):
        fn().square().sum().backward()
        grads.append([t.grad.clone() for t in (q, k, v)])
        for t in (q, k, v):
            t.grad = None
    for a, b in zip(*grads):
        assert (a - b).abs().max() <= 1e-8


def test_kernel_refuses_what_it_does_not_support():
    q = torch.randn(1, 10, 4)
    with pytest.raises(ValueError, match="multiple of dilation"):
        sliding_window_attention(q, q, q, 2, dilation=3)
    with pytest.raises(ValueError, match="global"):
        sliding_window_attention(q, q, q, 2, dilation=2, n_global=1)


def test_kernel_built_in_inference_mode_still_trains():
    q = torch.randn(1, 1, 70, 4)
    with torch.inference_mode():
        sliding_window_attention(q, q, q, 5, 16)
    q.requires_grad_(True)
    sliding_window_attention(q, q, q, 5, 16).sum().backward()
    assert q.grad is not None and torch.isfinite(q.grad).all()


@pytest.fixture
def sparse_model():
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=30, d_model=32, n_heads=4, n_layers=2, d_ff=64, max_len=128)
    return SparseTransformer(cfg, width=3, n_global=1).eval()


def test_sparse_model_fast_path_equals_captured_path(sparse_model):
    ids = torch.randint(0, 30, (2, 70))
    with torch.no_grad():
        fast = sparse_model(ids)
        with capturing():
            out = sparse_model.encode(ids)
        slow = sparse_model.lm_head(out.x)
    assert torch.allclose(fast, slow, atol=1e-5)
    w = out.intermediates[0].weights[0, 0].numpy()                          # (T, T)
    assert (w[~sparse_model.pattern.mask(70)] == 0).all()


def test_sparse_model_with_full_mask_is_a_plain_transformer(sparse_model):
    plain = Transformer(sparse_model.config).eval()
    plain.load_state_dict(sparse_model.state_dict())
    ids = torch.randint(0, 30, (1, 40))
    full = torch.ones(40, 40, dtype=torch.bool)
    with torch.no_grad():
        a = sparse_model.lm_head(sparse_model.encode(ids, mask=full).x)
        assert torch.allclose(a, plain(ids), atol=1e-5)
        assert not torch.allclose(sparse_model(ids), plain(ids), atol=1e-3)


def test_sparse_model_config_round_trips(sparse_model):
    again = SparseTransformer.from_config(sparse_model.config_dict())
    assert repr(again.pattern) == repr(sparse_model.pattern)
    with pytest.raises(ValueError, match="sparse"):
        SparseTransformer.from_config(sparse_model.config.to_dict())


def test_cost_methods_agree_and_dense_memory_grows_with_n_squared():
    q, k, v = (torch.randn(1, 1, 300, 16) for _ in range(3))
    ref = cost.dense_masked(q, k, v, cost.window_blocked(300, 10, 2))
    assert torch.allclose(sliding_window_attention(q, k, v, 10, n_global=2), ref, atol=1e-5)
    # measured in a fresh child process: in this one, memory freed by earlier tests hides the peak
    job = job_queue.QUEUE.submit(cost.sweep_command(["dense_masked", "sparse"], [2048], width=64, repeats=1),
                                 owner="test-cost", memory_mb=cost.memory_bound("cpu"), cwd=ROOT)
    rows = {r["method"]: r for r in job.stream()}
    n2_mib = 2048 * 2048 * 4 / 2**20                                     # one float32 N × N matrix
    assert rows["dense_masked"]["peak_mib"] >= 0.9 * n2_mib
    assert rows["sparse"]["peak_mib"] < rows["dense_masked"]["peak_mib"] / 4
    assert rows["sparse"]["time_ms"] > 0


# ---- the recipe (model/training/recipes/sparse_encoder.py): masked LM on real text in BPE ids ----

@pytest.fixture(scope="module")
def tok():
    from model.data import bpe
    return bpe.load()


@pytest.fixture(scope="module")
def held_out(tok):
    from model.training.recipes import sparse_encoder as recipe
    return recipe.eval_batch(tok)


@pytest.fixture(scope="module")
def bpe_sparse_model(tok):
    """A tiny random sparse encoder over the shipped BPE vocabulary, the recipe's pattern, 512 positions."""
    from model.training.recipes import sparse_encoder as recipe
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=len(tok), d_model=32, n_heads=2, n_layers=2, d_ff=64, max_len=512, norm="pre")
    return SparseTransformer(cfg, **recipe.PATTERN).eval()


def test_eval_batch_is_held_out_windows_with_a_sixth_of_the_real_pieces_masked(tok, held_out):
    from model.data import bpe
    from model.training.recipes import sparse_encoder as recipe
    inputs, targets = held_out
    assert inputs.shape == targets.shape == (recipe.EVAL["sequences"], recipe.EVAL["length"])   # (24, 512)
    assert (inputs[:, 0] == bpe.CLS).all() and (inputs[:, -1] == bpe.SEP).all()
    assert inputs.max() < len(tok) and not (inputs == bpe.UNK).any()
    chosen = targets >= 0
    assert (inputs[chosen] == bpe.MASK).all() and not (inputs[~chosen] == bpe.MASK).any()   # all [MASK], no swaps
    assert (targets[chosen] >= len(bpe.SPECIALS)).all()                  # never a special token hidden
    real = (inputs >= len(bpe.SPECIALS)) | chosen                         # the positions that could be chosen
    assert abs(chosen.sum() / real.sum() - recipe.EVAL["mask_rate"]) < 0.01   # 15% of ~12k pieces
    again = recipe.eval_batch(tok)
    assert torch.equal(again[0], inputs) and torch.equal(again[1], targets)   # a fixed evaluation set
    text = tok.decode(inputs[0, 1:-1][~chosen[0, 1:-1]].tolist())
    assert len(text.split()) > 100                                        # real text, not ids of nothing


def test_mlm_loss_is_cross_entropy_at_the_masked_positions_only(bpe_sparse_model, held_out):
    from model.training.recipes import sparse_encoder as recipe
    inputs, targets = held_out[0][:2], held_out[1][:2]
    loss, n_tokens = recipe.mlm_loss(bpe_sparse_model, (inputs, targets))
    assert n_tokens == inputs.numel()
    with torch.no_grad():
        logits = bpe_sparse_model(inputs)                                 # (B, T, V) at every position
    expected = torch.nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten(), ignore_index=-100)
    assert torch.allclose(loss.detach(), expected, atol=1e-5)
    assert abs(float(loss.detach()) - math.log(bpe_sparse_model.config.vocab_size)) < 1.0    # random: near uniform
    loss.backward()                                                        # through the blocked kernel
    grads = [p.grad for p in bpe_sparse_model.parameters() if p.grad is not None]
    assert grads and all(torch.isfinite(g).all() for g in grads)
    bpe_sparse_model.zero_grad(set_to_none=True)


def test_accuracy_counts_hits_at_masked_positions_and_the_dense_pattern_mask_matches_the_kernel(
        bpe_sparse_model, held_out):
    """Targets set to the model's own predictions under its pattern: accuracy is 1 by construction, under
    the kernel and under the same pattern as a dense mask; full attention changes what it predicts."""
    from model.training.recipes import sparse_encoder as recipe
    model, inputs, targets = bpe_sparse_model, held_out[0][:4], held_out[1][:4]
    chosen = targets >= 0
    with torch.no_grad():
        own = model(inputs).argmax(-1)                                     # (B, T) kernel path
    mine = torch.where(chosen, own, torch.full_like(targets, -100))
    T = inputs.shape[1]
    assert recipe.accuracy(model, inputs, mine) == 1.0
    assert recipe.accuracy(model, inputs, mine, model.pattern_mask(T)) == 1.0
    assert recipe.accuracy(model, inputs, mine, torch.ones(T, T, dtype=torch.bool)) < 0.9
    half = mine.clone()
    hidden = chosen.nonzero()[::2]                                         # every other masked position wrong
    half[hidden[:, 0], hidden[:, 1]] = (own[hidden[:, 0], hidden[:, 1]] + 1) % model.config.vocab_size
    assert recipe.accuracy(model, inputs, half) == pytest.approx(1 - len(hidden) / int(chosen.sum()))


def test_measure_reports_the_stated_metrics_on_the_held_out_batch(bpe_sparse_model, tok, held_out):
    from model.training.recipes import sparse_encoder as recipe
    m = recipe.measure(bpe_sparse_model, tok)
    assert set(m) >= {"mlm_accuracy", "mlm_accuracy_dense_mask", "mlm_accuracy_full_attention",
                      "mlm_baseline_most_frequent", "eval_tokens_per_sequence", "eval_masked_tokens",
                      "pattern_width", "pattern_global_tokens"}
    assert m["mlm_accuracy"] == m["mlm_accuracy_dense_mask"]
    targets = held_out[1][held_out[1] >= 0]
    assert m["eval_masked_tokens"] == targets.numel() and m["eval_tokens_per_sequence"] == 512
    _, counts = targets.unique(return_counts=True)
    assert m["mlm_baseline_most_frequent"] == round(float(counts.max() / counts.sum()), 4)
    assert (m["pattern_width"], m["pattern_global_tokens"]) == (8, 1)


@pytest.fixture(scope="module")
def shipped_sparse():
    from model import checkpoints
    from model.data import text_input
    model, meta = checkpoints.load("sparse_encoder")
    return model, text_input.tokenizer_of(meta), meta


def test_shipped_sparse_encoder_reads_bpe_and_reproduces_its_stated_metrics(shipped_sparse):
    from model.data import bpe, text_input
    from model.training.recipes import sparse_encoder as recipe
    model, tok, meta = shipped_sparse
    assert isinstance(tok, bpe.BPETokenizer) and meta["text_input"] == "cls_sep"
    assert model.config.vocab_size == len(tok)
    enc = text_input.encode(tok, "The restaurant near the station 老师喜欢车站附近的餐厅。", "cls_sep")
    assert not any(enc.unknown) and bpe.UNK not in enc.ids
    stated = meta["metrics"]
    inputs, targets = recipe.eval_batch(tok)                               # (24, 512)
    T = inputs.shape[1]
    again = {"mlm_accuracy": recipe.accuracy(model, inputs, targets),
             "mlm_accuracy_dense_mask": recipe.accuracy(model, inputs, targets, model.pattern_mask(T)),
             "mlm_accuracy_full_attention": recipe.accuracy(model, inputs, targets, torch.ones(T, T, dtype=bool))}
    one = 1 / stated["eval_masked_tokens"]                                 # one prediction flipped by float noise
    for key, value in again.items():
        assert value == pytest.approx(stated[key], abs=one + 1e-4), key
    assert stated["eval_masked_tokens"] == int((targets >= 0).sum()) and stated["eval_tokens_per_sequence"] == T
    assert stated["mlm_accuracy"] > stated["mlm_baseline_most_frequent"]  # beats guessing the commonest piece


def test_shipped_sparse_encoder_uses_the_kernel_on_512_tokens(shipped_sparse):
    from model.training.recipes import sparse_encoder as recipe
    model, tok, meta = shipped_sparse
    assert isinstance(model, SparseTransformer) and model.config.max_len >= 512
    assert meta["config"]["sparse"] == recipe.PATTERN
    inputs, targets = recipe.eval_batch(tok)
    inputs, targets = inputs[:3], targets[:3]                          # (3, 512)
    with torch.no_grad():
        fast = model(inputs)                                            # blocked kernel
        dense = model.lm_head(model.encode(inputs, mask=model.pattern_mask(512)).x)
    assert torch.allclose(fast, dense, atol=1e-4)
    hidden = targets >= 0
    acc = float((fast.argmax(-1) == targets)[hidden].float().mean())
    counts = np.bincount(targets[hidden].numpy())
    assert acc > counts.max() / counts.sum()                            # beats always guessing the commonest piece
