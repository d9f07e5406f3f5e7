"""The logit lens (model/analysis/logit_lens.py, `python -m model.lens`), checked against values from outside it: the
last row is the model's own output (its forward pass's logits), the embeddings row is recomputed by hand from the
weights in float64, ranks are counted by hand, the copy finder on sequences whose answer is known by construction, and
on incontext_copy a repeated random span is copied at the last layer as the model itself predicts it."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from model import checkpoints
from model.analysis import logit_lens as ll
from model.data import bpe, text_input
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from viz.logit_lens import plot_logit_lens

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "The restaurant refused to serve me a sandwich because it only cooks vegetarian food, so I"
N_SPECIAL = len(bpe.SPECIALS)


@pytest.fixture(scope="module")
def gpt():
    model, meta = checkpoints.load("general_gpt")
    return model, text_input.tokenizer_of(meta)


@pytest.fixture(scope="module")
def copier():
    if "incontext_copy" not in checkpoints.shipped():
        pytest.fail("incontext_copy is not in assets/: train it with `python -m model.train incontext_copy`")
    model, meta = checkpoints.load("incontext_copy")
    return model, meta, text_input.tokenizer_of(meta)


@pytest.fixture(scope="module")
def gpt_lens(gpt):
    model, tok = gpt
    return ll.read_text(model, tok, PROMPT, "bos")


def own_probabilities(model, ids) -> np.ndarray:
    """(T, V) float64: the model's own next-token distribution from its fast forward pass, specials never proposed."""
    with torch.inference_mode():
        logits = model(torch.tensor([list(ids)]))[0].double()
        logits[:, :N_SPECIAL] = float("-inf")
        return torch.softmax(logits, -1).numpy()


def test_shapes_rows_are_the_embeddings_and_every_layer(gpt, gpt_lens):
    model, _tok = gpt
    R, T = model.config.n_layers + 1, len(gpt_lens.ids)
    assert gpt_lens.tokens[0] == "[BOS]" and len(gpt_lens.tokens) == T
    assert gpt_lens.top.shape == gpt_lens.prob.shape == gpt_lens.final_rank.shape == (R, T)
    assert gpt_lens.top.min() >= N_SPECIAL                                    # special tokens are never proposed
    assert ((gpt_lens.prob > 0) & (gpt_lens.prob <= 1)).all()


def test_last_row_is_the_models_own_top_token_and_probability(gpt, gpt_lens):
    model, _tok = gpt
    p = own_probabilities(model, gpt_lens.ids)
    assert np.array_equal(gpt_lens.top[-1], p.argmax(-1))
    np.testing.assert_allclose(gpt_lens.prob[-1], p.max(-1), rtol=0, atol=2e-6)
    assert np.array_equal(gpt_lens.final, gpt_lens.top[-1])


def test_embeddings_row_computed_by_hand_at_one_position(gpt, gpt_lens):
    model, _tok = gpt
    t = 5
    w = {k: v.double() for k, v in model.state_dict().items()}
    x = w["embed.tok.weight"][gpt_lens.ids[t]] + w["embed.pos.table.weight"][t]              # (C,) learned positions
    eps = model.config.norm_eps
    x = (x - x.mean()) / torch.sqrt(((x - x.mean()) ** 2).mean() + eps)                     # LayerNorm, biased var
    x = x * w["encoder.final_norm.weight"] + w["encoder.final_norm.bias"]
    logits = w["lm_head.weight"] @ x + w["lm_head.bias"]                                     # (V,)
    logits[:N_SPECIAL] = float("-inf")
    p = torch.softmax(logits, -1).numpy()
    assert gpt_lens.top[0, t] == p.argmax()
    assert gpt_lens.prob[0, t] == pytest.approx(p.max(), abs=1e-5)
    final = gpt_lens.final[t]
    assert gpt_lens.final_rank[0, t] == int((p > p[final]).sum())                          # rank counted by hand


def test_final_rank_is_zero_in_the_last_row_and_counts_the_tokens_above(gpt, gpt_lens):
    assert (gpt_lens.final_rank[-1] == 0).all()
    assert (gpt_lens.final_rank[gpt_lens.top == gpt_lens.final[None]] == 0).all()
    assert (gpt_lens.final_rank[gpt_lens.top != gpt_lens.final[None]] >= 1).all()


def test_copy_sources_and_appears_from_on_sequences_known_by_construction():
    # [BOS] a b c x a b c: at the second a (5) the copy is b (position 2), then c (3), then x (4)
    ids = [5, 10, 11, 12, 13, 10, 11, 12]
    assert ll.copy_sources(ids).tolist() == [-1, -1, -1, -1, -1, 2, 3, 4]
    assert ll.copy_sources([5, 5, 1, 20, 1, 20]).tolist() == [-1, -1, -1, -1, -1, 4]      # specials copy nothing
    top = np.array([[7, 7, 7], [9, 8, 7], [9, 8, 9]])                                      # 3 rows × 3 positions
    assert ll.appears_from(top, np.array([9, 8, 7])).tolist() == [1, 1, -1]
    assert ll.appears_from(top, np.array([-1, 7, 9])).tolist() == [-1, -1, 2]
    assert ll.appears_from(np.array([[4], [3], [4]]), np.array([4])).tolist() == [2]        # the run ending last


def test_a_repeated_random_span_is_copied_at_the_last_layer_as_the_model_predicts(copier):
    model, _meta, tok = copier
    rng = np.random.default_rng(7)
    syllables = np.arange(N_SPECIAL, len(tok.vocab))
    for _trial in range(4):
        pick = rng.permutation(syllables)[:21]                           # 5 before, a span of 8, 8 between
        span = pick[5:13]
        ids = np.concatenate([[bpe.BOS], pick[:5], span, pick[13:21], span])      # 30 tokens, span at 6 and 22
        lens = ll.lens(model, ids)
        second = np.arange(22, 29)                                      # offsets 0..6 of the second copy
        copied = ids[second - 16 + 1]                                  # the token after the first occurrence
        assert (lens.top[-1, second] == copied).mean() >= 0.75
        p = own_probabilities(model, ids)
        assert np.array_equal(lens.top[-1], p.argmax(-1))
        rows, source = ll.copy_layers(lens)
        assert source[second].tolist() == (second - 16 + 1).tolist()
        hit = lens.top[-1, second] == copied
        assert (rows[second][hit] >= 1).all() and (rows[second][~hit] == -1).all()


def test_the_copy_appears_only_after_the_induction_layer(copier):
    """incontext_copy's induction head is L1 H0 (docs/models.md): before it, the embeddings and L0 rows do not copy."""
    model, meta, tok = copier
    from app_pages.views.logit_lens import READY_PROMPT
    lens = ll.read_text(model, tok, READY_PROMPT, "bos")
    rows, source = ll.copy_layers(lens)
    repeated = source >= 0
    assert repeated.sum() == 8 and (rows[repeated] == 2).all()


def test_refuses_an_encoder_an_empty_and_a_too_long_prompt(gpt):
    model, tok = gpt
    encoder = Transformer(ModelConfig(vocab_size=40, d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=8)).eval()
    with pytest.raises(ll.LensError, match=r"^The logit lens reads a decoder's next-token predictions; this model "
                                           r"\(kind “encoder”\) makes none\.$"):
        ll.lens(encoder, [5, 9, 10])
    with pytest.raises(ll.LensError, match=r"^The prompt is empty: type at least one word\.$"):
        ll.read_text(model, tok, "   ", "bos")
    n = len(text_input.encode(tok, "the cat " * 80, "bos").ids)
    with pytest.raises(ll.LensError, match=rf"^The prompt is {n} tokens long with \[BOS\]; this model reads at "
                                           rf"most 128\. Shorten the prompt\.$"):
        ll.read_text(model, tok, "the cat " * 80, "bos")


def test_a_post_ln_decoder_reads_its_stream_without_a_final_norm():
    torch.manual_seed(0)
    model = Transformer(ModelConfig(vocab_size=30, d_model=16, n_heads=2, n_layers=2, d_ff=32, max_len=12,
                                    kind="decoder", norm="post")).eval()
    ids = [5, 9, 10, 11, 9, 10]
    lens = ll.lens(model, ids)
    assert lens.top.shape == (3, 6)
    assert np.array_equal(lens.top[-1], own_probabilities(model, ids).argmax(-1))


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "model.lens", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_cli_json_has_exactly_the_promised_keys_and_shapes(gpt, gpt_lens):
    _model, tok = gpt
    out = run_cli(PROMPT, "--json")
    assert out.returncode == 0 and out.stderr == "", out.stderr
    got = json.loads(out.stdout)
    assert list(got) == ["model", "tokens", "top", "prob", "final_rank"] and got["model"] == "general_gpt"
    T = len(got["tokens"])
    assert got["tokens"] == list(gpt_lens.tokens)
    for key in ("top", "prob", "final_rank"):
        assert len(got[key]) == 5 and all(len(row) == T for row in got[key]), key
    assert got["top"] == [[tok.piece(int(i)) for i in row] for row in gpt_lens.top]
    np.testing.assert_allclose(got["prob"], gpt_lens.prob, atol=1e-6)
    assert got["final_rank"][-1] == [0] * T


def test_cli_reads_incontext_copy_with_its_word_tokenizer():
    out = run_cli("ka lo mi ka", "--model", "incontext_copy", "--json")
    got = json.loads(out.stdout)
    assert got["tokens"] == ["[BOS]", "ka", "lo", "mi", "ka"] and len(got["top"]) == 3


@pytest.mark.parametrize("args, line", [
    (["x", "--model", "general_encoder"], "error: general_encoder is not a decoder; the logit lens reads a decoder's "
                                          "next-token predictions. Decoders: general_gpt, incontext_copy, zh_gpt"),
    (["x", "--model", "nope"], "error: no model 'nope'; decoders: general_gpt, incontext_copy, zh_gpt"),
    (["  ", "--json"], "error: The prompt is empty: type at least one word."),
    (["ba " * 40, "--model", "incontext_copy"], "error: The prompt is 41 tokens long with [BOS]; this model reads at "
                                                "most 32. Shorten the prompt."),
    ([], "error: the following arguments are required: prompt (see --help)"),
])
def test_cli_errors_are_one_line_and_exit_2(args, line):
    out = run_cli(*args)
    assert out.returncode == 2 and out.stdout == "" and out.stderr.splitlines() == [line], out.stderr


def test_plot_writes_each_cells_top_token_and_colours_by_probability():
    prob = np.array([[0.1, 0.9], [0.5, 1.0]])
    fig = plot_logit_lens(prob, top_tokens=[["a", "<b>"], ["c", "d"]], final_rank=np.array([[3, 0], [0, 0]]),
                          row_labels=["embeddings", "L0"], tokens=["[BOS]", "x"], final_tokens=["c", "d"],
                          marked=[(1, 0)])
    heat, words = fig.data
    assert heat.type == "heatmap" and np.array_equal(np.asarray(heat.z), prob)
    assert words.mode == "text" and words.texttemplate == "%{customdata}"
    assert list(words.customdata) == ["a", "&lt;b&gt;", "c", "d"]                          # row by row, escaped
    assert list(zip(words.x, words.y)) == [("[BOS] ·0", "embeddings"), ("x ·1", "embeddings"), ("[BOS] ·0", "L0"),
                                           ("x ·1", "L0")]
    assert list(words.textfont.color) == ["#222222", "white", "#222222", "white"]        # light text on dark cells
    assert list(heat.y) == ["embeddings", "L0"] and list(heat.x) == ["[BOS] ·0", "x ·1"]
    assert (heat.zmin, heat.zmax) == (0.0, 1.0)
    assert "3 tokens rank above it" in heat.customdata[0][0] and "is top-1 here" in heat.customdata[0][1]
    assert len(fig.layout.shapes) == 1
