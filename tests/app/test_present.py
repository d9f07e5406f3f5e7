"""Presentation mode: a link with present=Light or present=Dark opens the page presenting (the sidebar hidden by the
page's CSS, type ×1.6, dark colours only in dark), the switch moves to the top of the page (even when the page stops
early), Off gives the usual page back, the mode survives a change of language, and a hostile value is refused with a
notice."""
import pytest

from app_pages import _present
from tests.app.conftest import infos, open_link, plotly_chart

HIDES_SIDEBAR = '[data-testid="stSidebar"]'


def css(at) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def switch(at):
    return at.button_group(key=_present.KEY)


def in_sidebar(at) -> bool:
    return any(w.key == _present.KEY for w in at.sidebar.button_group)


def test_a_dark_link_presents_the_page_and_off_gives_it_back():
    at = open_link("explorer.py", present="Dark")
    style = css(at)
    assert HIDES_SIDEBAR in style and "display: none" in style
    assert f"font-size: {round(16 * _present.SCALE)}px" in style and _present.DARK["paper"] in style
    assert not in_sidebar(at) and switch(at).value == "Dark"          # the way back is on the page
    switch(at).set_value("Off").run()
    assert HIDES_SIDEBAR not in css(at) and in_sidebar(at)


def test_dark_figures_write_their_titles_in_the_light_ink():
    spec = plotly_chart(open_link("translation.py", present="Dark"), "tr_cross_grid")
    assert spec["layout"]["paper_bgcolor"] == _present.DARK["paper"]
    assert spec["layout"]["title"]["font"]["color"] == spec["layout"]["legend"]["font"]["color"] == _present.DARK["ink"]
    assert {a["font"]["color"] for a in spec["layout"]["annotations"]} == {_present.DARK["ink"]}     # H0, H1, …


def test_a_legend_below_the_plot_moves_to_the_figures_foot_clear_of_the_larger_axis_title():
    plain = plotly_chart(open_link("why_attention.py"), "why_growth")["layout"]["legend"]
    shown = plotly_chart(open_link("why_attention.py", present="Light"), "why_growth")["layout"]["legend"]
    assert plain["y"] < 0 and plain.get("yref", "paper") == "paper"        # a share of the plot's height below it
    assert (shown["yref"], shown["y"], shown["yanchor"]) == ("container", 0, "bottom")


def test_light_presents_without_dark_colours():
    at = open_link("masks.py", present="Light")
    assert HIDES_SIDEBAR in css(at) and _present.DARK["paper"] not in css(at)


def test_the_mode_survives_a_change_of_language():
    at = open_link("home.py", present="Dark", lang="zh")
    assert switch(at).value == "深色" and _present.DARK["paper"] in css(at)
    at.radio(key="lang").set_value("en").run()
    assert switch(at).value == "Dark" and _present.DARK["paper"] in css(at)


def test_a_hostile_value_is_refused_with_a_notice():
    at = open_link("home.py", present="<b>Dazzle</b>")
    assert HIDES_SIDEBAR not in css(at)
    assert any("The link asked for the presentation mode “<b>Dazzle</b>”" in i.replace("\\", "") for i in infos(at))


def test_presenting_enlarges_the_type_and_squares_the_zoomed_map():
    usual = plotly_chart(open_link("explorer.py"), "explorer_zoom")["layout"]
    shown = plotly_chart(open_link("explorer.py", present="Light"), "explorer_zoom")["layout"]
    assert shown["font"]["size"] == pytest.approx(usual["font"]["size"] * _present.SCALE)
    assert shown["height"] == _present.MAP_HEIGHT != usual["height"]      # the screen's height, not the text's
    assert shown["yaxis"]["scaleanchor"] == "x"


def _order(at) -> list[str]:
    """The explorer's text box and zoomed head, in the order the page shows them."""
    out = []
    for node in _walk(at.main):
        if node.type == "text_area":
            out.append("text")
        elif node.type == "plotly_chart" and "explorer_zoom" in (node.proto.id or ""):
            out.append("zoom")
    return out


def _walk(node):
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def test_presenting_puts_the_zoomed_head_first():
    assert _order(open_link("explorer.py")) == ["text", "zoom"]
    assert _order(open_link("explorer.py", present="Dark")) == ["zoom", "text"]


def test_the_way_back_is_offered_even_when_the_page_stops_early():
    at = open_link("explorer.py", present="Dark", explorer_text=" ")       # an empty text stops the page
    assert any("Type some text" in w.value for w in at.warning)
    switch(at).set_value("Off").run()
    assert HIDES_SIDEBAR not in css(at)


INPUTS = {"text_area", "text_input", "selectbox", "number_input", "slider", "select_slider", "multiselect"}


def _first(at, chart_key: str) -> str:
    """"chart" when the chart keyed chart_key comes before every input of the page's main area, else "input"."""
    for node in _walk(at.main):
        if node.type in INPUTS:
            return "input"
        if node.type == "plotly_chart" and chart_key in (node.proto.id or ""):
            return "chart"
    raise AssertionError(f"no chart {chart_key} on the page")


@pytest.mark.parametrize("page, chart_key", [
    ("coreference.py", "coref_arrows"), ("masks.py", "masks_plot_A"), ("positional.py", "order_heat_a"),
    ("generation.py", "next_bars"), ("translation.py", "tr_cross_grid"), ("architecture.py", "arch_diagram"),
    ("why_attention.py", "why_growth"), ("images.py", "overlay_heads")])
def test_presenting_puts_each_pages_main_figure_above_its_controls(page, chart_key):
    # the usual page draws it below its inputs (checked on the explorer above); presenting, above every one
    assert _first(open_link(page, present="Light", predict="false"), chart_key) == "chart"


def test_presenting_puts_the_tokenization_pages_pieces_above_its_text_box():
    def first(at) -> str:
        for node in _walk(at.main):
            if node.type in INPUTS:
                return "input"
            if node.type == "markdown" and "<span" in node.proto.body and "walk" in node.proto.body:
                return "pieces"
        raise AssertionError("no pieces on the page")
    assert first(open_link("tokenization.py", present="Light")) == "pieces"
    assert first(open_link("tokenization.py")) == "input"
