"""A class's light first view in a real browser (runtime/first_view.py): on a server started with the class
setting, the explorer's first view shows the all-heads grid and the zoomed head as images before plotly.js is
loaded, then becomes interactive by itself, each image hidden once its chart is drawn over it."""
import pytest

from harness.server import streamlit_server
from runtime import first_view
from tests.browser.conftest import open_app_page, shot

GRID, ZOOM = f".st-key-{first_view.BOX}explorer-grid", f".st-key-{first_view.BOX}explorer-zoom"


@pytest.fixture(scope="module")
def class_url(tmp_path_factory):
    log = tmp_path_factory.mktemp("first_view") / "streamlit.log"
    with streamlit_server(log, env={first_view.LIGHT_ENV: "1"}) as url:
        yield url


def test_the_first_view_is_images_then_the_same_pictures_interactive(class_url, page):
    open_app_page(page, class_url, "explorer.py")
    grid_img, zoom_img = page.locator(f"{GRID} img.first-view"), page.locator(f"{ZOOM} img.first-view")
    grid_img.wait_for(state="visible", timeout=60_000)
    zoom_img.wait_for(state="visible", timeout=60_000)
    assert page.locator(".main-svg").count() == 0              # no chart yet: the rerun comes after a pause
    assert zoom_img.get_attribute("alt") == "L0 H0 attention"
    assert grid_img.evaluate("i => i.naturalWidth > 0") and zoom_img.evaluate("i => i.naturalWidth > 0")
    shot(page, "first_view_images")

    page.locator(f"{GRID} .main-svg").first.wait_for(timeout=60_000)     # interactive without a click
    page.locator(f"{ZOOM} .main-svg").first.wait_for(timeout=60_000)
    page.wait_for_function(f"""() => [...document.querySelectorAll('{GRID} img.first-view, {ZOOM} img.first-view')]
                                     .every(i => getComputedStyle(i).display === 'none')""", timeout=10_000)
    source = page.evaluate(f"() => document.querySelector('{GRID} .js-plotly-plot').data[0].source")
    assert source == grid_img.get_attribute("src")              # the chart shows the picture the image showed
    shot(page, "first_view_interactive")
