"""The figures a page's doc quotes are the page's own: read back from docs/pages/<page>.md and compared with what that
page prints (AppTest, one torch thread as app.py runs) and with the analysis run outside the page. Word order (the
positional page's first tab, model/analysis/order.py, quoted in docs/pages/positional.md): the sentences, the model
and the four maxima."""
import re
from pathlib import Path

import pytest
import torch

from app_pages.views import positional_order
from model import checkpoints
from model.analysis import order
from model.data import text_input
from tests.app.conftest import open_link

DOC = Path(__file__).resolve().parents[2] / "docs" / "pages" / "positional.md"
NUMBER = r"([0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?)"                  # 6.1, 0.0000062, 1.2e-6


def word_order_bullet() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("- **Word order**")
    return text[start:text.index("\n- **", start + 1)]


def quoted(pattern: str, text: str) -> list[str]:
    found = re.search(pattern, text, re.S)
    assert found, f"{DOC.name} no longer says {pattern!r}"
    return list(found.groups())


def decimals(figure: str) -> int:
    return len(figure.split(".")[1].split("e")[0]) if "." in figure else 0


def test_the_documented_word_order_figures_are_what_the_page_prints():
    """Positions on: the doc's figures equal the page's and the analysis's to the doc's last digit. Positions off,
    the differences are float32 rounding, whose last digits depend on the machine and the threads: the doc's figure
    and the page's are within a factor of two of each other and below float32 rounding's reach (1e-6 of the
    outputs' largest magnitude; 1e-5 for weights, which are at most 1) (a doc saying 1.2e-6 where the page
    printed 6.2e-6 would fail)."""
    bullet = word_order_bullet()
    model, a, b = quoted(r"the shipped `(\w+)` reads \"(.+?)\" and \"(.+?)\"", bullet)
    assert (model, a, b) == (order.MODEL, order.SENTENCE_A, order.SENTENCE_B)
    page_defaults = (positional_order.ORDER_A, positional_order.ORDER_B)
    assert page_defaults == (order.SENTENCE_A, order.SENTENCE_B)
    off_output, off_weight = quoted(rf"max \|Δ output\| {NUMBER}, max \|Δ weight\| {NUMBER}", bullet)
    on_output, on_weight = quoted(rf"On: they differ by up to {NUMBER} and {NUMBER}", bullet)

    at = open_link("positional.py", pos_tab="Word order")
    assert at.selectbox(key="order_model").value == order.MODEL
    shown = {m.label: float(m.value) for m in at.metric}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)                                          # as app.py runs every session
    try:
        net, meta = checkpoints.load(order.MODEL)
        exp = order.order_experiment(net, text_input.tokenizer_of(meta), a, b, text_input.rule_of(meta))
    finally:
        torch.set_num_threads(threads)

    for figure, label, exact in ((on_output, "Output, positions on", exp.errors["on"]["output"]),
                                 (on_weight, "Attention, positions on", exp.errors["on"]["attention"])):
        half = 0.5 * 10 ** -decimals(figure)
        assert float(figure) == pytest.approx(exact, abs=half), (label, figure, exact)
        assert float(figure) == pytest.approx(shown[label], abs=half), (label, figure, shown[label])
    rounding = {"output": 1e-6 * exp.errors["off"]["output_scale"], "attention": 1e-5}    # float32: ε ≈ 1.2e-7
    for figure, label, exact, most in ((off_output, "Output, positions off", exp.errors["off"]["output"],
                                        rounding["output"]),
                                       (off_weight, "Attention, positions off", exp.errors["off"]["attention"],
                                        rounding["attention"])):
        for value in (exact, shown[label]):
            assert 0.5 <= float(figure) / value <= 2 and value < most, (label, figure, value, most)
