"""The architecture page through AppTest: it draws every shipped model from the config it ships with, counts
the parameters of the model it loaded, and links each page it names."""
import pytest

from model import checkpoints
from tests.app.conftest import open_page, plotly_chart

SHIPPED = checkpoints.shipped()
# models the diagram draws (text models and the ViTs); Swin, DaViT and ImageGPT get their numbers only
DRAWN = [n for n in SHIPPED if "n_heads" in checkpoints.read_meta(n)["config"]
         and "levels" not in checkpoints.read_meta(n)["config"]]


@pytest.fixture(scope="module")
def at():
    page = open_page("architecture.py", timeout=120)
    assert not page.exception, [e.message for e in page.exception]
    return page


def table(at, i: int = 0) -> dict:
    """quantity -> value of the page's numbers table."""
    df = at.table[i].value
    return dict(zip(df["quantity"], df["value"]))


@pytest.mark.parametrize("name", DRAWN)
def test_page_draws_each_shipped_model_and_counts_its_parameters(at, name):
    at.selectbox(key="arch_model").set_value(name).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error
    model, meta = checkpoints.load(name)
    counted = next(m.value for m in at.metric if m.label.startswith("Parameters"))
    assert counted == f"{sum(p.numel() for p in model.parameters()):,}"
    c = meta["config"]
    numbers = table(at)
    assert numbers["Heads h"] == str(c["n_heads"]) and numbers["d_model"] == str(c["d_model"])
    assert numbers["d_k = d_model / h"] == f"{c['d_model']} / {c['n_heads']} = {c['d_model'] // c['n_heads']}"
    assert numbers["d_ff (feed-forward width)"] == str(c["d_ff"])
    assert numbers["Norm"].startswith(f"{c['norm']}-LN")
    spec = plotly_chart(at, "arch_diagram")
    texts = " ".join(a.get("text", "") for a in spec["layout"]["annotations"])
    assert f"d_k = {c['d_model']} / {c['n_heads']} = {c['d_model'] // c['n_heads']}" in texts
    assert ("Cross-attention" in texts) == (c.get("kind") == "encoder_decoder")


def test_page_links_the_pages_that_teach_its_blocks(at):
    at.selectbox(key="arch_model").set_value("translator").run()
    links = {p.proto.page for p in at.get("page_link")}
    assert {"translation", "masks", "step_by_step", "positional", "tokenization"} <= links      # url paths
    modules = at.table[1].value
    assert set(modules["module"]) >= {"embed", "encoder", "tgt_embed", "decoder", "lm_head"}


@pytest.mark.parametrize("name, rows", [
    ("swin_digits", {"Architecture": "Swin", "Stages": "3", "Tokens per stage": "8×8 / 4×4 / 2×2",
                     "Width C per stage": "32 / 64 / 128", "Window": "2×2 tokens, shifted every other block"}),
    ("davit_digits", {"Architecture": "DaViT", "Heads (and channel groups) per stage": "2 / 4 / 8"}),
    ("imagegpt_digits", {"Heads h": "4", "Vocabulary V": "8 levels + a start token"}),
])
def test_hierarchical_and_pixel_models_show_their_numbers(at, name, rows):
    at.selectbox(key="arch_model").set_value(name).run()
    assert not at.exception and not at.error
    model, _ = checkpoints.load(name)
    assert next(m.value for m in at.metric if m.label.startswith("Parameters")) == \
        f"{sum(p.numel() for p in model.parameters()):,}"
    numbers = table(at)
    assert {k: numbers[k] for k in rows} == rows

