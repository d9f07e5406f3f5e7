"""The why-attention page (AppTest): the textbook's 37 × 1024 numbers and their formulas, inputs that follow the
widgets and the link, a shipped model reading four lengths with one parameter count, and the RNN measured step by
step against attention."""
import pytest

from model import checkpoints
from model.analysis import sizes
from tests.app.conftest import infos, open_link, open_page
from tests.app.conftest import plotly_array as values
from tests.app.conftest import plotly_chart as chart

PAGE = "why_attention.py"


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def show(at, tab: str):
    at.session_state["why_tab"] = tab
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.fixture(scope="module")
def at():
    page = open_page(PAGE, timeout=120)
    assert not page.exception, [e.message for e in page.exception]
    return page


def test_the_page_opens_on_the_textbooks_37_words_of_1024_dimensions(at):
    show(at, "Input size")
    m = metrics(at)
    assert m["Inputs N·D"] == "37,888"
    assert m["One dense layer"] == "1,435,538,432"                       # 37888² + 37888, by hand
    assert m["Self-attention (W_Q, W_K, W_V, W_O)"] == "4,198,400"       # 4 · (1024² + 1024)
    assert "37 words" in " ".join(e.value for e in at.markdown)
    assert any("3,148,800" in e.value.replace("{,}", ",") for e in at.latex)    # the textbook's φ: 3(D² + D)
    spec = chart(at, "why_growth")
    assert spec["data"][-1]["x"] == [37] and spec["data"][-1]["y"] == [37888 ** 2 + 37888]


def test_the_numbers_follow_the_inputs_and_the_link(at):
    show(at, "Input size")
    at.number_input(key="why_words").set_value(2)
    at.number_input(key="why_dims").set_value(3).run()
    assert metrics(at)["One dense layer"] == "42" and metrics(at)["Self-attention (W_Q, W_K, W_V, W_O)"] == "48"
    linked = open_link(PAGE, why_words="100", why_dims="512")
    assert metrics(linked)["One dense layer"] == f"{51200 ** 2 + 51200:,}"
    assert linked.query_params["why_words"] == "100" and linked.query_params["why_dims"] == "512"


def test_a_stale_link_says_so_and_shows_the_defaults():
    at = open_link(PAGE, why_words="0", why_dims="999999", why_tab="Nowhere")
    said = infos(at)
    assert "The link asked for the tab “Nowhere”, which is not on this page now; showing “Input size”." in said
    assert "The link asked for the number of words “0”, which is not on this page now; showing “37”." in said
    assert (f"The link asked for the dimensions per word “999999”, which is not on this page now; showing "
            f"“{sizes.COURSE_DIMS}”.") in said
    assert metrics(at)["Inputs N·D"] == "37,888"


def test_a_shipped_model_reads_four_lengths_with_one_parameter_count(at):
    show(at, "Parameters vs N")
    name = at.selectbox(key="why_model").value
    model, _ = checkpoints.load(name)
    total = sum(p.numel() for p in model.parameters())
    table = at.dataframe[0].value
    assert table["words read"].tolist() == [5, 10, 20, 37]
    assert set(table["model parameters"]) == {f"{total:,}"}
    n = table["tokens N"].tolist()
    assert n == sorted(n) and len(set(n)) == 4
    d = model.config.d_model
    assert table["one dense layer over N·d_model"].tolist() == [f"{(k * d) ** 2 + k * d:,}" for k in n]
    assert [s.value for s in at.success] == ["4 lengths, one parameter count."]
    parts = at.dataframe[1].value
    assert sum(int(v.replace(",", "")) for v in parts["parameters"]) == total


def test_the_rnn_is_measured_step_by_step_against_one_attention_pass(at):
    show(at, "RNN vs attention")
    steps = at.dataframe[0].value
    assert steps.loc[steps["N"] == 1024, "RNN: sequential steps"].item() == 1024
    assert set(steps["attention: sequential steps"]) == {1}
    at.multiselect(key="why_rnn_n").set_value([16, 64])
    at.selectbox(key="why_rnn_d").set_value(64)
    at.button(key="why_rnn_go").click().run()
    assert not at.exception, [e.message for e in at.exception]
    measured = at.dataframe[1].value
    assert measured["N"].tolist() == [16, 64] and measured["RNN steps run"].tolist() == [16, 64]
    assert measured["attention steps run"].tolist() == [1, 1]
    assert (measured[["RNN, Python loop (ms)", "self-attention (ms)"]] >= 0).all().all()
    spec = chart(at, "why_rnn_timing")
    assert values(spec["data"][3]["y"]).tolist() == [16, 64] and values(spec["data"][4]["y"]).tolist() == [1, 1]
    at.multiselect(key="why_rnn_n").set_value([]).run()
    assert "Pick at least one sequence length." in infos(at)
