"""Slide exports open with their labels: the PNG is drawn at 2x, the SVG holds the title, the axis titles, the
colour bar and the caption line as text, a square map keeps square cells, and a step-through GIF has one distinct
frame per step. One Chromium (viz.render's) serves the whole module."""
import io
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from app_pages import _export
from viz import gif, render, slide
from viz.generation import plot_causal_growth
from viz.heatmap import plot_heatmap
from viz.positional import plot_row_norms
from viz.steps import plot_matrix

SVG = "{http://www.w3.org/2000/svg}"
TOKENS = ["The", "restaurant", "refused", "me", "because", "it", "我有一只猫"]
TEXT = "it only cooks <b>vegetarian</b> food. 我有一只猫"


@pytest.fixture(scope="module", autouse=True)
def browser():
    assert render.browser_path() is not None, ("these tests draw figures in Chromium, which was not found: "
                                               "apt-get install chromium (or set BROWSER_PATH)")
    yield
    render.close()


def texts(svg: bytes) -> list[str]:
    """Every piece of text an SVG shows, one string per <text> element (its tspans joined)."""
    root = ET.fromstring(svg)
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def has_colour_bar(svg: bytes) -> bool:
    root = ET.fromstring(svg)
    return any("colorbar" in (g.get("class") or "").split() for g in root.iter(f"{SVG}g"))


def png_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as im:
        assert im.format == "PNG"
        return im.size


def weights(rows: int, cols: int) -> np.ndarray:
    w = np.random.default_rng(0).random((rows, cols))
    return w / w.sum(1, keepdims=True)


def test_file_names_say_what_they_show():
    assert slide.file_stem("coref_encoder", "L3 H1", "attention") == "coref_encoder_L3H1_attention"
    assert slide.file_stem("gpt", "from_<cls>", "我") == "gpt_from_cls"
    assert slide.file_stem("", "  ") == "figure"
    assert _export.stem(("coref_encoder", "L3H1", "attention")) == "coref_encoder_L3H1_attention"


def test_caption_line_names_model_head_and_a_clipped_text():
    line = slide.caption_line("coref_encoder", None, "L3 H1", text="a  b\nc")
    assert line == "coref_encoder · L3 H1 · “a b c”"
    long = slide.caption_line("m", text="word " * 100)
    assert long.endswith("…”") and len(long) < slide.TEXT_CHARS + 10


def test_heatmap_slide_png_is_2x_and_svg_holds_every_label():
    fig = plot_heatmap(weights(16, len(TOKENS)), x_labels=TOKENS, y_labels=[f"L{i // 4} H{i % 4}" for i in range(16)],
                       x_title="key word", y_title="head", title="Attention row of “it” in every head")
    caption = slide.caption_line("coref_encoder", "every head", text=TEXT)
    assert slide.slide_size(fig) == (1600, 900)                        # not square: 16:9
    assert png_size(_export.slide_png(fig, caption)) == (3200, 1800)
    svg = _export.slide_svg(fig, caption)
    shown = texts(svg)
    assert "Attention row of “it” in every head" in shown
    assert "key word" in shown and "head" in shown
    assert caption in shown and "<b>vegetarian</b>" in caption        # typed markup shown as text, not bold
    assert "我有一只猫 ·6" in shown                                      # CJK labels kept as text
    assert has_colour_bar(svg)
    assert 'width="1600"' in svg.decode()[:400]


def test_a_figure_without_its_own_title_gets_the_given_one_and_a_hidden_colour_bar_comes_back():
    m = np.arange(12, dtype=float).reshape(3, 4) - 5
    fig = plot_matrix(m, row_labels=TOKENS[:3])                        # numbers in the cells: no colour bar on the page
    assert fig.data[0].showscale is False
    svg = _export.slide_svg(fig, "coref_encoder · L0 H0", title="Q = X·W_Q + b_Q (3, 4)")
    shown = texts(svg)
    assert "Q = X·W_Q + b_Q (3, 4)" in shown and "coref_encoder · L0 H0" in shown
    assert "token" in shown and "dimension" in shown
    assert {"-5.0000", "6.0000"} <= set(shown)                        # the cells' numbers
    assert has_colour_bar(svg)


def test_a_square_map_keeps_square_cells():
    n = len(TOKENS)
    fig = plot_heatmap(weights(n, n), x_labels=TOKENS, y_labels=TOKENS, title="L3 H1")
    width, height = slide.slide_size(fig)
    assert height == 900 and height <= width <= 1600
    root = ET.fromstring(_export.slide_svg(fig, "coref_encoder · L3 H1"))
    image = next(root.iter(f"{SVG}image"))                             # Plotly draws a heatmap as one image
    assert float(image.get("width")) == pytest.approx(float(image.get("height")), abs=1.5)
    assert float(image.get("width")) > 0.4 * height


def test_line_figure_slide_holds_title_axes_and_caption():
    norms = np.linspace(1.0, 0.2, 40)
    fig = plot_row_norms(norms, 0.23)
    caption = slide.caption_line("coref_encoder", "learned positions")
    svg = _export.slide_svg(fig, caption, title="Norm of each learned position vector")
    shown = texts(svg)
    own = fig.layout.title.text
    assert (own or "Norm of each learned position vector") in shown
    assert caption in shown
    for axis in (fig.layout.xaxis.title.text, fig.layout.yaxis.title.text):
        assert axis and axis in shown
    assert png_size(_export.slide_png(fig, caption)) == (3200, 1800)


def test_step_through_gif_has_one_distinct_frame_per_step():
    tokens = ["[BOS]", "The", "cat", "sat", "on", "it"]
    w = np.tril(weights(6, 6))
    w /= w.sum(1, keepdims=True)

    def frame(i):
        return plot_causal_growth(w, tokens, upto=2 + i, n_prompt=3, title=f"Step {i + 1} of 3")
    data = gif.animate(_export.gif_frames(frame, 3, caption="general_gpt · L3, mean of heads"))
    with Image.open(io.BytesIO(data)) as im:
        assert im.format == "GIF" and im.n_frames == 3 and im.info.get("loop") == 0
        assert im.size[1] == 720 and 720 <= im.size[0] <= 1280       # the slide at 0.8; square maps stay square
        frames = []
        for k in range(3):
            im.seek(k)
            frames.append(np.asarray(im.convert("RGB")))
    for a in range(3):
        for b in range(a + 1, 3):
            assert (frames[a] != frames[b]).any(axis=-1).mean() > 0.001   # each step draws something new


def test_gif_is_bounded_with_a_clear_message():
    png = Image.new("RGB", (8, 8), "white")
    buf = io.BytesIO()
    png.save(buf, format="PNG")
    one = buf.getvalue()
    with pytest.raises(ValueError, match=f"limited to {gif.MAX_FRAMES} frames; {gif.MAX_FRAMES + 1} were given"):
        gif.animate([one] * (gif.MAX_FRAMES + 1))
    with pytest.raises(ValueError, match="at least one frame"):
        gif.animate([])
    other = io.BytesIO()
    Image.new("RGB", (9, 8)).save(other, format="PNG")
    with pytest.raises(ValueError, match="same size"):
        gif.animate([one, other.getvalue()])


def test_no_browser_is_told_in_words(monkeypatch):
    monkeypatch.setenv("BROWSER_PATH", "/nonexistent/chromium")
    assert render.browser_path() is None
    with pytest.raises(render.RenderError, match=re.escape("apt-get install chromium")):
        _export.slide_png(plot_row_norms(np.ones(4), 1.0), "caption")


def test_a_log_coloured_zoom_keeps_its_one_log_colour_bar_on_the_slide():
    from viz import grid
    fig = grid.plot_zoom(weights(4, 4), q_labels=TOKENS[:4], k_labels=TOKENS[:4], log=True)
    s = slide.slide_figure(fig, caption="coref_encoder · L3 H1")
    shown = [t for t in s.data if t.type == "heatmap" and t.showscale is not False]
    shown += [t for t in s.data if t.type == "scatter" and t.marker.showscale]
    assert len(shown) == 1 and list(shown[0].marker.colorbar.ticktext) == grid.log_ticks()["ticktext"]
