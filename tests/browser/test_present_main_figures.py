"""Presenting at 1280 × 720, light and dark: the figure a prepared view is about comes first and is readable. The
fill-in tab's fillers stand above everything (no unrelated prompt box: before, they were two screens down under
the decoder's prompt), the multi-head tab opens on each head's attention map side by side (before: the 21 × 128
MultiHead(X) matrix), and a ViT's head overlays are as tall as their colour bar (before: 163 px images beside
600 px bars)."""
import urllib.parse

import pytest
from playwright.sync_api import expect

from harness.server import wait_for_app
from tests.browser.conftest import shot

CHART = '[data-testid="stPlotlyChart"]'
SCREEN = {"width": 1280, "height": 720}


@pytest.fixture(params=["Light", "Dark"])
def presenting(request, browser, server_url):
    """(open(path, **params) -> page, mode): a 1280 × 720 page that opens a link in presentation mode."""
    ctx = browser.new_context(viewport=SCREEN)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def open_view(path: str, **params):
        page.goto(f"{server_url}/{path}?{urllib.parse.urlencode({**params, 'present': request.param})}")
        wait_for_app(page, timeout=180_000)
        page.locator(f"{CHART} .main-svg").first.wait_for(timeout=120_000)
        wait_for_app(page, timeout=180_000)
        return page

    yield open_view, request.param.lower()
    ctx.close()
    assert not errors, errors


def _box(locator) -> dict:
    box = locator.bounding_box()
    assert box is not None, locator
    return box


def test_the_fill_in_figure_comes_first_with_no_prompt_box(presenting):
    open_view, mode = presenting
    page = open_view("generation", gen_tab="Fill-in (encoder)")
    first = page.locator(CHART).first
    assert first.locator(".barlayer .bars path").count() >= 5            # the fillers' bars
    assert _box(first)["y"] < SCREEN["height"] / 2
    assert page.get_by_role("textbox", name="Prompt").count() == 0
    shot(page, f"present_fill_in_{mode}")


def test_the_multi_head_tab_opens_on_each_heads_map_side_by_side(presenting):
    open_view, mode = presenting
    page = open_view("step_by_step", steps_tab="Multi-head")
    first = page.locator(CHART).first
    assert "side by side" in first.locator(".gtitle").first.text_content()
    assert [t.text_content() for t in first.locator(".annotation-text").all()] == [f"L0 H{h}" for h in range(4)]
    box = _box(first)
    assert box["y"] + box["height"] <= SCREEN["height"] + 40, box
    shot(page, f"present_multi_head_{mode}")


def test_vit_overlays_are_as_tall_as_their_colour_bar(presenting):
    open_view, mode = presenting
    page = open_view("images", img_digit="digit_7_0")
    first = page.locator(CHART).first
    images = first.locator(".imagelayer image")
    expect(images).to_have_count(4, timeout=120_000)      # a redraw on a busy machine briefly holds old and new
    panels = [_box(p) for p in images.all()]
    bar = _box(first.locator(".colorbar .cbfill").first)
    assert len(panels) == 4
    assert all(p["height"] >= 0.9 * bar["height"] for p in panels), (panels, bar)
    assert all(p["y"] + p["height"] <= SCREEN["height"] for p in panels)
    shot(page, f"present_vit_{mode}")
