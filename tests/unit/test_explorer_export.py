"""Downloads: CSV and JSON carry every weight exactly (float32 round trip), SVG escapes every token."""
import csv
import io
import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from viz import export

TOKENS = ["[CLS]", "a,b", 'say "hi"', "<script>", "[SEP]"]


@pytest.fixture
def weights():
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 5)).astype(np.float32)
    e = np.exp(x)
    return (e / e.sum(-1, keepdims=True)).astype(np.float32)


def test_csv_has_one_row_per_layer_head_query_and_every_weight_exact(weights):
    rows = list(csv.reader(io.StringIO(export.weights_csv(weights, TOKENS).decode())))
    header, body = rows[0], rows[1:]
    assert header[:4] == ["layer", "head", "query", "query_token"] and header[4:] == [f"{j}:{t}" for j, t in
                                                                                        enumerate(TOKENS)]
    assert len(body) == 2 * 3 * 5
    for r in body:
        layer, head, query = map(int, r[:3])
        assert r[3] == TOKENS[query]
        assert (np.array(r[4:], dtype=np.float32) == weights[layer, head, query]).all()


def test_json_has_the_shape_tokens_and_every_weight_exact(weights):
    doc = json.loads(export.weights_json(weights, TOKENS, model="m", notices=["cut"]))
    assert doc["shape"] == [2, 3, 5, 5] and doc["tokens"] == TOKENS and doc["model"] == "m"
    assert doc["notices"] == ["cut"]
    assert (np.array(doc["weights"], dtype=np.float32) == weights).all()


def test_svg_is_valid_xml_with_escaped_tokens_one_rect_per_weight_and_exact_tooltips(weights):
    svg = export.heatmap_svg(weights[0, 0], q_labels=TOKENS, k_labels=TOKENS, title="<b>head</b>")
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    rects = [r for r in root.iter(f"{ns}rect") if r.find(f"{ns}title") is not None]
    assert len(rects) == 25
    assert np.float32(rects[7].find(f"{ns}title").text) == weights[0, 0, 1, 2]


@pytest.mark.parametrize("log, ticks", [(False, [0, 0.25, 0.5, 0.75, 1]), (True, [1e-4, 1e-3, 0.01, 0.1, 1])])
def test_svg_colour_bar_gives_each_ticked_weight_the_colour_its_cell_has(log, ticks):
    """Read off the bar as a reader does: the gradient's colour at each tick's height is the fill of a cell holding
    that weight."""
    m = np.array([ticks], dtype=np.float32)
    root = ET.fromstring(export.heatmap_svg(m, q_labels=["q"], k_labels=[str(t) for t in ticks], log=log))
    ns = "{http://www.w3.org/2000/svg}"
    cells = {np.float32(r.find(f"{ns}title").text): r.get("fill") for r in root.iter(f"{ns}rect")
             if r.find(f"{ns}title") is not None}
    bar = next(r for r in root.iter(f"{ns}rect") if r.get("fill") == "url(#weight_bar)")
    top, height = float(bar.get("y")), float(bar.get("height"))
    stops = {round(float(s.get("offset")), 4): s.get("stop-color") for s in root.iter(f"{ns}stop")}
    labels = [t for t in root.iter(f"{ns}text") if t.get("class") == "tick"]
    assert [float(t.text) for t in labels] == pytest.approx(ticks)
    for t in labels:
        at = round((float(t.get("y")) - 4 - top) / height, 4)              # the tick's height on the bar
        assert stops[at] == cells[np.float32(t.text)], t.text


def test_svg_refuses_more_tokens_than_its_limit():
    n = export.SVG_MAX_TOKENS + 1
    with pytest.raises(ValueError, match="SVG export is limited"):
        export.heatmap_svg(np.zeros((n, n)), q_labels=["x"] * n, k_labels=["x"] * n)


def test_png_of_one_head_is_scaled_blocks_of_the_palette(weights):
    img = Image.open(io.BytesIO(export.heatmap_png(weights[1, 2], scale=3)))
    assert img.size == (15, 15) and img.mode == "P"
    from viz.grid import palette_index
    assert (np.asarray(img)[::3, ::3] == palette_index(weights[1, 2])).all()
