"""The one way the app names layers and heads: "L3 H1", counted from 0 as `python -m model.evaluate --json` reports
coref_head (labels.py). What breaks it: another style ("Layer 1, head 3", "L1 · H2", "第 1 层") or a count at or
past the last layer or head (counted from 1). Read from every string a page shows: text elements, widget options,
and every string of every Plotly figure (titles, axis ticks, categories, trace names, annotations, hovers)."""
import json
import re

from model import checkpoints

STYLES = [re.compile(p) for p in (r"(\b|_)[Ll]ayers? ?\d", r"(\b|_)[Hh]eads? ?\d", r"\bL\d+ ?· ?H\d+",
                                  r"第\s*\d+\s*(个)?[层头]")]
LAYER, HEAD = re.compile(r"\bL(\d+)\b"), re.compile(r"\bH(\d+)\b")
PLACEHOLDER = re.compile(r"\{[^{}]*\}")          # a message's {layer0} is filled in, not shown
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


def wrong_style(strings) -> list[str]:
    """The strings that name a layer or head in another style than "L3 H1"."""
    return sorted({s for s in strings if any(p.search(PLACEHOLDER.sub(" ", s)) for p in STYLES)})


def bad_labels(strings, n_layers: int, n_heads: int) -> list[str]:
    """The strings that break the convention: another style, or a count past the last layer or head."""
    bad = wrong_style(strings)
    bad += [s for s in strings if any(int(m) >= n_layers for m in LAYER.findall(s))]
    bad += [s for s in strings if any(int(m) >= n_heads for m in HEAD.findall(s))]
    return sorted(set(bad))


def sizes() -> tuple[int, int]:
    """The most layers and heads of any shipped model (a label at or past them is counted from 1)."""
    configs = [checkpoints.read_meta(n)["config"] for n in checkpoints.shipped()]
    # hierarchical image models list depths and heads per stage (DaViT: two blocks per depth)
    layers = max(max(c.get("n_layers", 0), c.get("n_dec_layers") or 0, 2 * sum(c.get("depths", []))) for c in configs)
    return layers, max(c.get("n_heads") or max(c["heads"]) for c in configs)


def check_page(at, page: str):
    """Every layer and head label the page shows follows the convention; sliders over layers or heads print L%d/H%d."""
    n_layers, n_heads = sizes()
    assert bad_labels(shown_strings(at), n_layers, ALIBI_HEADS if page == "positional.py" else n_heads) == []
    for slider in at.slider:
        if slider.label.lower() in ("layer", "head", "层", "头"):
            assert slider.proto.format in ("L%d", "H%d"), slider.label
