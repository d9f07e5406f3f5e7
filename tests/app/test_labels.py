"""Every page names layers and heads one way: "L3 H1", counted from 0 as `python -m model.evaluate --json`
reports coref_head (labels.py). Renders every page (every lazy tab, the Swin section of the image page) and
reads every label it finds: text elements, widget options and slider formats, and every string of every
Plotly figure (titles, axis ticks, categories, trace names, annotations, hover templates)."""
import json
import re

import pytest

from app_pages import _pages
from model import checkpoints
from tests.app.conftest import open_page
from tests.app.every_view import VIEWS, view_id

STYLES = [re.compile(p) for p in (r"(\b|_)[Ll]ayers? ?\d", r"(\b|_)[Hh]eads? ?\d", r"\bL\d+ ?· ?H\d+")]
LAYER, HEAD = re.compile(r"\bL(\d+)\b"), re.compile(r"\bH(\d+)\b")
TEXT_ELEMENTS = ("title", "header", "subheader", "markdown", "caption", "info", "warning", "success", "error")
OPTION_WIDGETS = ("selectbox", "multiselect", "radio")
ALIBI_HEADS = 16                        # the positional page's ALiBi picker offers up to 16 heads of no model


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def shown_strings(at) -> list[str]:
    """Every string the page shows that may name a layer or a head."""
    out = [e.value for kind in TEXT_ELEMENTS for e in getattr(at, kind)]
    out += [e.label for e in at.expander] + [e.label for e in at.tabs]
    for kind in OPTION_WIDGETS:
        for w in getattr(at, kind):
            out += [str(o) for o in w.options]
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        out += list(_strings(spec["layout"])) + [s for trace in spec["data"] for s in _strings(
            {k: v for k, v in trace.items() if k in ("name", "text", "hovertemplate", "x", "y", "customdata")})]
    return out


def bad_labels(strings, n_layers: int, n_heads: int) -> list[str]:
    """The strings that break the convention: another style, or a count past the last layer or head."""
    bad = [s for s in strings if any(p.search(s) for p in STYLES)]
    bad += [s for s in strings if any(int(m) >= n_layers for m in LAYER.findall(s))]
    bad += [s for s in strings if any(int(m) >= n_heads for m in HEAD.findall(s))]
    return sorted(set(bad))


def test_the_checker_flags_other_styles_and_one_based_counts():
    good = ["L0 H3", "Head L3 H1 points it at restaurant", "L2, mean of heads", "H0", "4 layers × 4 heads"]
    assert bad_labels(good, 4, 4) == []
    for wrong in ("Layer 1, head 3", "layer 4", "head 2", "L1 · H2", "layer2_head1.csv", "L4 H0", "L0 H4"):
        assert bad_labels([wrong], 4, 4) == [wrong]


@pytest.fixture(scope="module")
def sizes() -> tuple[int, int]:
    """The most layers and heads of any shipped model (a label at or past them is counted from 1)."""
    configs = [checkpoints.read_meta(n)["config"] for n in checkpoints.shipped()]
    # hierarchical image models list depths and heads per stage (DaViT: two blocks per depth)
    layers = max(max(c.get("n_layers", 0), c.get("n_dec_layers") or 0, 2 * sum(c.get("depths", []))) for c in configs)
    return layers, max(c.get("n_heads") or max(c["heads"]) for c in configs)


@pytest.mark.parametrize("page, state", [v for v in VIEWS if v[0] != "home.py"],
                         ids=[view_id(*v) for v in VIEWS if v[0] != "home.py"])
def test_every_layer_and_head_label_on_the_page_follows_the_convention(page, state, sizes):
    at = open_page(timeout=180)
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(f"app_pages/{page}").run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    strings = shown_strings(at)
    assert strings
    n_layers, n_heads = sizes
    assert bad_labels(strings, n_layers, ALIBI_HEADS if page == "positional.py" else n_heads) == []
    for slider in at.slider:
        if slider.label.lower() in ("layer", "head"):
            assert slider.proto.format == f"{slider.label[0].upper()}%d", slider.label


def test_every_page_is_covered():
    assert {p for p, _ in VIEWS} == {p[0] for p in _pages.available()}
