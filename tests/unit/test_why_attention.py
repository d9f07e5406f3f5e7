"""The why-attention numbers: the textbook's 37 words × 1024 dimensions (12.1), parameter counts by hand formula,
parameters that do not depend on N (12.2.3), and the RNN's N sequential steps against attention's one pass (checked
against torch.nn.RNN and the numpy reference)."""
import numpy as np
import pytest
import torch

from model import reference as R
from model.analysis import recurrence, sizes
from model.data.course_world import PARAGRAPH
from model.data.word_tokenizer import WordTokenizer
from model.engine.attention import MultiHeadAttention
from model.engine.config import ModelConfig
from model.engine.transformer import Transformer
from viz.why_attention import plot_param_growth, plot_rnn_timing


def test_the_textbook_paragraph_has_37_words_and_37_x_1024_inputs():
    assert sizes.count_words(PARAGRAPH) == 37                        # 12.1: "这段 37 个词"
    assert sizes.COURSE_WORDS * sizes.COURSE_DIMS == 37888            # 12.1: 37 × 1024 = 37888


def test_dense_and_attention_parameters_by_hand():
    assert sizes.dense_params(37, 1024) == 1_435_500_544 + 37_888    # 37888² weights + 37888 biases
    assert sizes.dense_params(1, 1) == 2
    assert sizes.attention_params(1024, output=False) == 3 * (1_048_576 + 1024) == 3_148_800   # φ of 12.2.3
    assert sizes.attention_params(1024) == 4_198_400                  # + W_O (Ω_c) and its bias
    assert sizes.attention_params(128) == sum(p.numel() for p in MultiHeadAttention(128, 4).parameters())


def test_model_parts_add_up_by_hand_formula():
    c = ModelConfig(vocab_size=10, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=5, pos_encoding="learned")
    parts = sizes.parts(Transformer(c))
    assert parts == {"token embedding": 10 * 8, "position table": 5 * 8, "self-attention": 4 * (64 + 8),
                     "feed-forward": 8 * 16 + 16 + 16 * 8 + 8, "LayerNorms": 2 * (8 + 8), "output head": 8 * 10 + 10}


def test_one_model_reads_every_length_with_the_same_parameters():
    text = "the cat sat on the mat because it was warm and the dog did not mind"
    tok = WordTokenizer.build([text])
    torch.manual_seed(0)
    model = Transformer(ModelConfig(vocab_size=len(tok), d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=32)).eval()
    runs = sizes.runs_at_lengths(model, tok, "cls_sep", text, (2, 5, 15))
    assert [r.n_tokens for r in runs] == [4, 7, 17]                   # [CLS] + words + [SEP]
    assert [r.out_shape for r in runs] == [(4, 16), (7, 16), (17, 16)]
    assert {r.n_params for r in runs} == {sum(p.numel() for p in model.parameters())}
    assert [r.dense_params for r in runs] == [64 ** 2 + 64, 112 ** 2 + 112, 272 ** 2 + 272]


def test_growth_is_flat_for_attention_and_quadratic_for_the_dense_layer():
    g = sizes.growth(4, 100)
    assert g["N"][0] == 1 and g["N"][-1] == 100 and np.all(np.diff(g["N"]) > 0)
    assert np.all(g["attention"] == 4 * 20)
    assert np.array_equal(g["dense"], (4 * g["N"]) ** 2 + 4 * g["N"])


def test_the_rnn_takes_n_steps_and_equals_torch_rnn():
    torch.manual_seed(0)
    cell = torch.nn.RNNCell(8, 8)
    x = torch.randn(11, 8)
    with torch.no_grad():
        h, steps = recurrence.rnn_step_by_step(cell, x)
        lib, last = recurrence.library_rnn(cell)(x[None])
    assert steps == 11 and h.shape == (11, 8)
    assert torch.allclose(h, lib[0], atol=1e-6) and torch.allclose(h[-1], last[0, 0], atol=1e-6)
    # step t depends on every earlier input: change the first vector, the last state moves
    with torch.no_grad():
        h2, _ = recurrence.rnn_step_by_step(cell, torch.cat([x[:1] + 1.0, x[1:]]))
    assert (h2[-1] - h[-1]).abs().max() > 1e-4


def test_attention_runs_all_positions_in_one_pass_and_equals_numpy():
    torch.manual_seed(0)
    attn = MultiHeadAttention(8, 2).eval()
    x = torch.randn(6, 8)
    with torch.no_grad():
        out, passes = recurrence.attention_at_once(attn, x)

    def rows(lin):
        return lin.weight.detach().double().numpy().T, lin.bias.detach().double().numpy()
    (wq, bq), (wk, bk), (wv, bv), (wo, bo) = map(rows, (attn.w_q, attn.w_k, attn.w_v, attn.w_o))
    ref, _, _ = R.multi_head_attention(x.double().numpy(), wq, wk, wv, wo, 2, bq, bk, bv, bo)
    assert passes == 1 and np.abs(out.double().numpy() - ref).max() < 1e-5


def test_a_measurement_reports_times_and_steps_and_refuses_a_length_out_of_range():
    t = recurrence.measure(8, d_model=16, n_heads=2, repeats=1)
    assert (t.n, t.d_model, t.rnn_steps, t.attention_steps) == (8, 16, 8, 1)
    assert min(t.rnn_ms, t.rnn_library_ms, t.attention_ms) > 0
    with pytest.raises(ValueError, match="N = 4097 is outside 1..4096"):
        recurrence.measure(4097)
    assert recurrence.steps_between(37) == {"rnn_steps": 37, "attention_steps": 1, "rnn_path": 36,
                                            "attention_path": 1}


def test_the_figures_draw_what_they_are_given():
    g = sizes.growth(1024, 1000)
    fig = plot_param_growth(g["N"], g["dense"], g["attention"], d=1024, marked_n=37, model=("m", 123))
    assert [t.name for t in fig.data][:3] == ["one dense layer, N·1,024 → N·1,024",
                                             "self-attention, d = 1,024 (W_Q, W_K, W_V, W_O)", "m, whole model"]
    assert fig.data[-1].y[0] == 37888 ** 2 + 37888 and fig.layout.yaxis.type == "log"
    fig = plot_rnn_timing([16, 64], [1.0, 4.0], [0.5, 2.0], [0.2, 0.3])
    assert len(fig.data) == 5 and list(fig.data[3].y) == [16, 64] and list(fig.data[4].y) == [1, 1]
