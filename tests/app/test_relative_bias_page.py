"""The learned relative-position bias on the positional page (AppTest, shipped relative_digits): the table drawn is
the tensor in the safetensors file, ALiBi's curves are −m·|δ| with the paper's slopes, the model's accuracy with and
without its table, and a typed row of digits (bounded, checked, in the URL)."""
import numpy as np
import pytest
from safetensors.numpy import load_file

from model import checkpoints
from tests.app.conftest import infos, open_link, open_page
from tests.app.conftest import plotly_array as values
from tests.app.conftest import plotly_chart as chart
from tests.app.conftest import trace_z as z_of

NAME = "relative_digits"


@pytest.fixture(scope="module")
def at():
    page = open_page("positional.py", timeout=120)
    page.session_state["pos_tab"] = "Learned vs relative"
    page.run()
    assert not page.exception, [e.message for e in page.exception]
    return page


def test_the_table_is_the_shipped_tensor_beside_alibis_fixed_slopes(at):
    stored = load_file(str(checkpoints.ASSETS / f"{NAME}.safetensors"))["rel_bias.table"]        # (H, 2K + 1)
    spec = chart(at, "relb_table")
    assert np.array_equal(z_of(spec["data"][0]), stored.astype(np.float64))
    assert spec["data"][0]["y"] == ["H0", "H1", "H2", "H3"]
    K = (stored.shape[1] - 1) // 2
    curves = chart(at, "relb_curves")["data"]
    offsets = np.arange(-K, K + 1)
    for h in range(4):                                                   # ALiBi, 4 heads: m = 2^(−8(h+1)/4)
        np.testing.assert_allclose(values(curves[4 + h]["y"]), -(2.0 ** (-2 * (h + 1))) * np.abs(offsets))
        np.testing.assert_allclose(values(curves[h]["y"]), stored[h], rtol=1e-6)


def test_the_model_needs_its_table_and_answers_a_typed_row(at):
    m = {e.label: e.value for e in at.metric}
    assert float(m["Accuracy on 512 fresh rows"].rstrip("%")) > 99
    assert float(m["The same weights, table left out"].rstrip("%")) < 20
    at.text_input(key="relb_digits").input("3141 5926 535").run()
    assert not at.exception and not at.error
    table = at.dataframe[-1].value
    assert table.loc["digit x"].tolist() == list("31415926535")
    assert table.loc["target y"].tolist() == ["·", "2", "6", "5", "9", "9", "4", "9", "1", "·", "·"]   # by hand
    assert any("8 of 8" in e.value for e in at.markdown)
    at.text_input(key="relb_digits").input("12a4").run()
    assert [e.value for e in at.error] == ["Only the digits 0–9 can be read; found 'a'."]


def test_a_link_opens_the_row_it_names():
    at = open_link("positional.py", pos_tab="Learned vs relative", relb_digits="27182818")
    assert not [n for n in infos(at) if n.startswith("The link asked")]
    assert at.dataframe[-1].value.loc["digit x"].tolist() == list("27182818")
    assert at.query_params["relb_digits"] == "27182818"
