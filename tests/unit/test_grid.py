"""The all-heads grid image, the zoomed head, the head view and the statistics figures: the pixels
and numbers they carry match the weights they were given."""
import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

from viz import grid, head_view
from viz import stats as stat_viz


def softmaxed(shape, seed=0) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def decode(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png))


def values(obj) -> np.ndarray:
    """A Plotly JSON array: a plain list or Plotly 7's {"dtype", "bdata", "shape"}."""
    if isinstance(obj, dict):
        arr = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=obj["dtype"])
        return arr.reshape([int(s) for s in str(obj["shape"]).split(",")]) if "shape" in obj else arr
    arr = np.asarray(obj)
    return np.array(obj, dtype=float) if arr.dtype == object else arr    # JSON null among numbers: NaN, a gap


def test_grid_puts_layer_l_head_h_in_row_l_column_h_with_the_palette_colour_of_its_weight():
    L, H, n = 3, 4, 8
    values = np.arange(L * H, dtype=np.float32).reshape(L, H) / (L * H)
    w = np.broadcast_to(values[:, :, None, None], (L, H, n, n)).copy()
    g = grid.grid_image(w, cell=16, gap=2)
    img = decode(g.png)
    assert img.mode == "P" and img.size == (H * 16 + (H - 1) * 2, L * 16 + (L - 1) * 2) == (g.width, g.height)
    idx = np.asarray(img)
    for lay in range(L):
        for h in range(H):
            block = idx[lay * 18:lay * 18 + 16, h * 18:h * 18 + 16]
            assert (block == grid.palette_index(values[lay, h])).all()
    assert (idx[16:18, :] == grid.GAP_INDEX).all()                 # the gap between layer rows
    pal = np.array(img.getpalette()[:256 * 3], dtype=np.uint8).reshape(-1, 3)
    assert (pal[:256] == grid.lut()).all()


def test_palette_index_maps_zero_and_one_to_the_ends_and_log_spreads_decades():
    assert grid.palette_index(np.array([0.0, 1.0])).tolist() == [0, 254]
    assert grid.palette_index(np.array([1e-6, 1e-4, 1e-2, 1.0]), log=True).tolist() == [0, 0, 127, 254]


def test_resample_averages_blocks_when_shrinking_and_repeats_pixels_when_growing():
    m = softmaxed((128, 128))
    small = grid.resample(m, 64)
    assert small.shape == (64, 64)
    assert np.allclose(small, m.reshape(64, 2, 64, 2).mean((1, 3)), atol=1e-6)
    tiny = np.arange(4, dtype=np.float32).reshape(2, 2)
    assert grid.resample(tiny, 6).tolist() == np.kron(tiny, np.ones((3, 3))).tolist()


@pytest.mark.parametrize("n, layers, heads, expected", [(128, 12, 12, 60), (8, 4, 4, 176), (512, 4, 4, 180),
                                                        (180, 4, 4, 180)])
def test_cell_size_fits_the_screen_and_never_exceeds_n_unless_by_whole_multiples(n, layers, heads, expected):
    assert grid.cell_size(n, layers, heads) == expected


def test_plot_grid_sends_one_png_and_one_click_target_per_head():
    w = softmaxed((2, 3, 10, 10))
    fig, g = grid.plot_grid(w, picked=(1, 2), cell_text=[["a"] * 3, ["b"] * 3])
    spec = json.loads(fig.to_json())
    image, targets = spec["data"][0], spec["data"][1]
    assert image["type"] == "image" and image["source"].startswith("data:image/png;base64,")
    assert base64.b64decode(image["source"].split(",", 1)[1]) == g.png
    assert len(values(targets["x"])) == 6
    assert values(targets["customdata"]).reshape(6, 2).tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]
    assert targets["text"][5].startswith("L1 H2<br>b")
    rect = spec["layout"]["shapes"][0]
    step = g.cell + g.gap
    assert rect["x0"] == pytest.approx(2 * step - 1.5) and rect["y0"] == pytest.approx(1 * step - 1.5)


def test_grid_of_12x12_heads_at_128_tokens_is_an_image_far_smaller_than_its_numbers():
    w = softmaxed((12, 12, 128, 128))
    fig, g = grid.plot_grid(w)
    sent = len(fig.to_json())
    numbers = w.size * 4                                           # float32 weights, not even JSON
    assert sent < numbers / 20, (sent, numbers)


def test_zoom_sends_exact_float32_weights_with_labels_and_a_fixed_scale():
    m = softmaxed((5, 5))
    tokens = ["[CLS]", "<b>x</b>", "it", "it", "[SEP]"]
    spec = json.loads(grid.plot_zoom(m, q_labels=tokens, k_labels=tokens).to_json())
    trace = spec["data"][0]
    z = values(trace["z"]).reshape(5, 5)
    assert trace["z"]["dtype"] == "f4" and (z == m).all()
    assert (trace["zmin"], trace["zmax"]) == (0.0, 1.0)
    assert trace["y"][1] == "&lt;b&gt;x&lt;/b&gt; ·1" and trace["x"][2] != trace["x"][3]
    assert "weight: %{z:.6f}" in trace["hovertemplate"]


def test_log_colour_scale_keeps_linear_data_but_colours_by_decade():
    scale = grid.log_colorscale()
    positions = [p for p, _ in scale]
    assert positions[0] == 0.0 and positions[-1] == pytest.approx(1.0) and positions == sorted(positions)
    mid = next(c for p, c in scale if p == pytest.approx(1e-2, rel=1e-6))
    from plotly.colors import sample_colorscale
    assert mid == sample_colorscale("Blues", [0.5])[0]


def test_head_view_draws_only_the_picked_tokens_lines_with_opacity_from_weight():
    w = np.zeros((2, 4, 4), np.float32)
    w[0] = [[1, 0, 0, 0], [0.9, 0.1, 0, 0], [0, 0.5, 0.5, 0], [0, 0, 0, 1]]
    w[1] = np.eye(4)
    pairs = head_view.line_pairs(w[0], 0, 4, picked=1, min_weight=0.05)
    assert sorted(map(tuple, pairs.tolist())) == [(1, 0), (1, 1), (2, 1)]
    spec = json.loads(head_view.plot_head_view(w, list("abcd"), heads=[0], picked=1, min_weight=0.05).to_json())
    lines = [t for t in spec["data"] if t.get("mode") == "lines" and t.get("showlegend") is False]
    by_opacity = {t["opacity"]: int(np.isfinite(values(t["x"])).sum()) // 2 for t in lines}
    assert by_opacity == {1.0: 1, 0.125: 1, 0.625: 1}              # 0.9, 0.1 and 0.5 in eight bins
    assert all(t["line"]["color"] == head_view.head_colour(0) for t in lines)


def test_head_view_escapes_tokens_and_respects_the_window():
    w = softmaxed((1, 6, 6))
    spec = json.loads(head_view.plot_head_view(w, ["<img>"] + list("abcde"), heads=[0], start=0, stop=3).to_json())
    texts = [t for t in spec["data"] if t.get("name") == "query"][0]["text"]
    assert texts == ["&lt;img&gt;", "a", "b"]


def test_attends_to_bars_are_the_top_keys_of_the_query_row_per_head():
    w = softmaxed((3, 7, 7))
    spec = json.loads(stat_viz.plot_attends_to(w, list("abcdefg"), 2, heads=[0, 2], k=3).to_json())
    for trace, h in zip(spec["data"], [0, 2]):
        assert values(trace["x"]).tolist() == pytest.approx(sorted(w[h, 2], reverse=True)[:3])


def test_stat_map_writes_values_and_short_labels_in_cells():
    spec = json.loads(stat_viz.plot_stat_map(np.array([[0.5, 0.25]]), name="x",
                                            labels=[[["previous-token"], []]]).to_json())
    assert spec["data"][0]["text"] == [["0.500<br>prev", "0.250"]]


@pytest.mark.parametrize("n_heads", [1, 4, 8, 12])
def test_attends_to_panels_wrap_into_rows_inside_the_figure(n_heads):
    w = softmaxed((n_heads, 5, 5))
    layout = json.loads(stat_viz.plot_attends_to(w, list("abcde"), 0, heads=range(n_heads)).to_json())["layout"]
    domains = [v["domain"] for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))]
    assert len(domains) == 2 * n_heads
    assert all(0 <= lo < hi <= 1 for lo, hi in domains)


def test_the_zoomed_heads_log_colour_bar_is_ticked_where_the_map_gives_those_weights_their_colour():
    from plotly.colors import sample_colorscale
    w = np.full((3, 3), 1 / 3, np.float32)
    fig = grid.plot_zoom(w, q_labels=list("abc"), k_labels=list("abc"), log=True)
    heat = next(t for t in fig.data if t.type == "heatmap")
    bars = [t for t in fig.data if t.type == "scatter" and t.marker.showscale]
    assert heat.showscale is False and len(bars) == 1           # one bar, on the log scale, not the linear one
    bar = bars[0].marker
    assert [float(t) for t in bar.colorbar.ticktext] == [1e-4, 1e-3, 1e-2, 1e-1, 1.0]
    for pos, text in zip(bar.colorbar.tickvals, bar.colorbar.ticktext):
        on_map = sample_colorscale([list(s) for s in heat.colorscale], [float(text)])[0]   # the cell's colour
        on_bar = sample_colorscale([list(s) for s in bar.colorscale], [pos])[0]          # the bar's at the tick
        assert on_map == on_bar, (text, on_map, on_bar)
    linear = grid.plot_zoom(w, q_labels=list("abc"), k_labels=list("abc"))
    assert [t.type for t in linear.data] == ["heatmap"] and linear.data[0].showscale is not False
