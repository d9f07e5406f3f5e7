"""The sizes of published models a lecturer cites (model.analysis.published) are the course texts' own numbers, and
they hang together: counting the weights from the sizes alone gives each cited total within 2%."""

import pytest

from model.analysis import published as p
from tests.seeds import SEEDS


def test_cited_totals_follow_from_the_sizes():
    """Per layer 12·d² (+ biases, LayerNorms) and the token table: BERT-base 110M, BERT-large 340M, GPT-3 175B."""
    for m in (p.BERT_BASE, p.BERT_LARGE, p.GPT3):
        assert abs(p.estimate_params(m) / m.params - 1) < 0.02, m.name
    assert p.estimate_params(p.GPT3) == pytest.approx(96 * 12 * 12_288**2, rel=0.01)    # the familiar 12·L·d²


def test_the_sizes_are_the_course_texts_numbers():
    assert (p.BERT_LARGE.layers, p.BERT_LARGE.d_model, p.BERT_LARGE.heads, p.BERT_LARGE.d_k, p.BERT_LARGE.d_ff,
            p.BERT_LARGE.vocab, p.BERT_LARGE.params) == (24, 1024, 16, 64, 4096, 30_000, 340_000_000)   # 12.6
    assert (p.BERT_BASE.layers, p.BERT_BASE.d_model, p.BERT_BASE.heads, p.BERT_BASE.params) == (12, 768, 12,
                                                                                                  110_000_000)
    assert (p.GPT3.layers, p.GPT3.d_model, p.GPT3.heads, p.GPT3.context, p.GPT3.params) == (96, 12_288, 96, 2048,
                                                                                            175_000_000_000)
    assert (p.TUTORIAL.d_model, p.TUTORIAL.heads, p.TUTORIAL.d_k, p.TUTORIAL.layers, p.TUTORIAL.vocab) == \
        (512, 8, 64, 6, 10_000)
    assert (p.TYPICAL_D, p.TYPICAL_VOCAB) == (1024, 30_000)                                          # 12.5.2
    assert (p.IMAGEGPT_PARAMS, p.IMAGEGPT_SIDE, p.IMAGEGPT_COLOURS, p.IMAGEGPT_TEST_SIDE,
            p.IMAGEGPT_TOP1_ERROR) == (6_800_000_000, 64, 512, 48, 0.274)                            # 12.10.1


@pytest.mark.parametrize("line, phrases", [
    (145, ["1024", "30000"]),                                        # 12.5.2: typical D and |V|
    (157, ["3 万", "1024 维", "24 个", "16 个头", "64", "4096", "3.4 亿"]),   # 12.6: BERT-large
    (217, ["2048", "96 层", "12288", "96 个头", "3000 亿", "1750 亿"]),      # 12.7.4: GPT-3
    (250, ["68 亿", "64×64", "9 位", "512", "取平均", "27.4%"]),             # 12.10.1: ImageGPT
])
def test_the_textbook_says_these_numbers_where_the_sources_point(line, phrases):
    textbook = SEEDS / "000_97d1f8fdb02fc1d3.txt"
    if not textbook.is_file():
        pytest.skip(f"the course texts are not at {SEEDS}")
    text = textbook.read_text(encoding="utf-8").splitlines()[line - 1]
    assert all(phrase in text for phrase in phrases), [ph for ph in phrases if ph not in text]
