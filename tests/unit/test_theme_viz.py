"""A figure for a dark page (viz.theme.on_dark): the head view's faintest line stands out from dark paper at least as
much as it does from white paper in the light look, the strongest as text would (WCAG 4.5 : 1), and the lines keep
their order (a heavier weight never drawn fainter)."""
import numpy as np

from viz import theme
from viz.head_view import plot_head_view

WHITE, DARK_PAPER = (255, 255, 255), (14, 17, 23)        # the light page, and _present.DARK["paper"] (#0e1117)


def rgb(hex_colour: str) -> tuple[int, int, int]:
    return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))


def seen(colour: str, opacity: float, paper) -> float:
    """Contrast of a line of `colour` at `opacity` against `paper`, as the browser blends them."""
    blend = [opacity * c + (1 - opacity) * p for c, p in zip(rgb(colour), paper)]
    return theme.contrast(theme.luminance("rgb({:.1f},{:.1f},{:.1f})".format(*blend)), theme.luminance(
        "rgb({},{},{})".format(*paper)))


def lines(fig) -> list[tuple[str, float]]:
    return [(t.line.color, t.opacity) for t in fig.data if t.mode == "lines" and t.opacity is not None]


def test_the_head_views_lines_stand_out_from_dark_paper():
    weights = np.zeros((4, 8, 8))                     # query i: weight w_i on key i, the rest on the next key
    for i, w in enumerate(np.linspace(0.05, 0.95, 8)):   # so that every opacity bin gets lines
        weights[:, i, i], weights[:, i, (i + 1) % 8] = w, 1 - w
    fig = plot_head_view(weights, [f"w{i}" for i in range(8)], heads=[0, 1, 2, 3])
    light = lines(fig)
    dark = lines(theme.on_dark(fig))
    assert len(dark) == len(light) >= 8
    for (lc, lo), (dc, do) in zip(light, dark):
        assert seen(dc, do, DARK_PAPER) >= seen(lc, lo, WHITE), (lc, lo, dc, do)
    faintest = min(seen(c, o, DARK_PAPER) for c, o in dark)
    strongest = max(seen(c, o, DARK_PAPER) for c, o in dark)
    assert faintest >= 2.0 and strongest >= 4.5, (faintest, strongest)
    for colour in {c for c, _o in dark}:
        opacities = [o for c, o in dark if c == colour]
        before = [o for (c, o), (dc, _d) in zip(light, dark) if dc == colour]
        assert np.argsort(opacities).tolist() == np.argsort(before).tolist()      # the order of weights kept


def test_a_diagram_on_dark_paper_keeps_dark_words_on_light_blocks_and_lightens_grey_arrows_on_the_paper():
    import plotly.graph_objects as go
    fig = go.Figure(layout=dict(
        shapes=[dict(type="rect", x0=0, x1=10, y0=0, y1=10, fillcolor="#fce0b4"),              # a light block
                dict(type="path", path="M 2,2 L 8,8", line=dict(color="#444")),                 # on the block
                dict(type="path", path="M 20,0 L 30,10", line=dict(color="#444")),              # on the paper
                dict(type="path", path="M 20,0 L 30,0", line=dict(color="#d62728"))],           # red: it means
        annotations=[dict(x=5, y=5, text="in a block", showarrow=False, font=dict(color="#fafafa")),
                     dict(x=25, y=5, text="on the paper", showarrow=False, font=dict(color="#fafafa")),
                     dict(x=25, y=20, ax=25, ay=12, axref="x", ayref="y", text="", arrowcolor="#444"),
                     dict(x=5, y=8, ax=5, ay=2, axref="x", ayref="y", text="", arrowcolor="#444")]))
    theme.lines_on_dark(fig, "#b8bcc8")
    words = {a.text: a.font.color for a in fig.layout.annotations if a.text}
    assert words == {"in a block": theme.DARK_INK, "on the paper": "#fafafa"}
    assert [a.arrowcolor for a in fig.layout.annotations if not a.text] == ["#b8bcc8", "#444"]
    assert [s.line.color for s in fig.layout.shapes[1:]] == ["#444", "#b8bcc8", "#d62728"]
