"""The image page in a real browser: overlays are drawn on the digit and on a scene, the Swin views render
(scenes; digits with a stage picked), ImageGPT's completions are drawn, and a bad upload shows its message.
Screenshots: screenshots/images_*.png."""
from playwright.sync_api import expect

from tests.browser.conftest import shot, wait_for_app
from tests.unit.test_images_catalogue import CATALOGUE

HEATMAP = '[data-testid="stPlotlyChart"] .heatmaplayer image'


def tall_shot(page, name: str, height: int = 6000):
    """Streamlit scrolls inside its own container: grow the window so one screenshot holds the page."""
    page.set_viewport_size({"width": 1400, "height": height})
    page.wait_for_timeout(1500)                    # charts re-lay out to the new size
    shot(page, name)
    page.set_viewport_size({"width": 1400, "height": 1000})


def _open(page, server_url):
    page.goto(server_url)                        # deep links probe <path>/_stcore/*: go through the sidebar
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Image patches").click()
    wait_for_app(page)
    page.wait_for_selector(HEATMAP, timeout=60_000)


def test_digit_overlays_are_drawn(page, server_url):
    _open(page, server_url)
    expect(page.get_by_text("The model answers")).to_be_visible()
    head = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="L3 H0").filter(has_not_text="every head")
    expect(head.locator(".heatmaplayer image")).to_have_count(1)
    tall_shot(page, "images_digits")


def test_scene_overlays_and_swin_view(page, server_url):
    _open(page, server_url)
    page.get_by_text("Swin · which shape is red?").first.click()
    wait_for_app(page)
    expect(page.get_by_text("who may attend to whom")).to_have_count(1, timeout=60_000)
    expect(page.get_by_text("answers", exact=False).first).to_be_visible()
    page.wait_for_selector(HEATMAP, timeout=60_000)
    tall_shot(page, "images_swin_scenes", 8000)


def test_swin_stages_and_imagegpt_completions_are_drawn(page, server_url):
    _open(page, server_url)
    page.get_by_text("Swin · handwritten digits").first.click()
    wait_for_app(page)
    expect(page.get_by_text("5 · Stages: windows, shifts and 2×2 merging")).to_be_visible(timeout=60_000)
    page.get_by_text("Stage 1 · 4×4 tokens").last.click()                # the stage selector, not the figure title
    wait_for_app(page)
    expect(page.get_by_text("over the 16 tokens of stage 1", exact=False)).to_be_visible(timeout=60_000)
    tall_shot(page, "images_swin_digits", 9000)
    page.get_by_text("ImageGPT · completing digits").first.click()
    wait_for_app(page)
    expect(page.get_by_text("4 · Completing the lower part")).to_be_visible(timeout=60_000)
    chart = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="greedy")
    expect(chart.locator(".layer-above image, .imagelayer image").first).to_be_attached(timeout=60_000)
    tall_shot(page, "images_imagegpt_digits", 6000)


def test_a_bad_upload_shows_a_message_then_a_drawn_digit_is_read(page, server_url):
    _open(page, server_url)
    page.get_by_text("Upload", exact=True).click()
    wait_for_app(page)
    data = CATALOGUE["decompression bomb"][0]()
    page.locator('input[type="file"]').set_input_files(
        files=[{"name": "bomb.png", "mimeType": "image/png", "buffer": data}])
    expect(page.get_by_text("This image cannot be used.", exact=False)).to_be_visible(timeout=60_000)
    shot(page, "images_bad_upload")
    page.get_by_text("Draw", exact=True).click()                    # the page lives on
    canvas = page.locator("canvas").last
    canvas.wait_for(timeout=60_000)
    box = canvas.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.15
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x, y + box["height"] * 0.7, steps=15)            # one long vertical stroke: a 1
    page.mouse.up()
    expect(page.get_by_text("The model answers")).to_be_visible(timeout=60_000)
    page.wait_for_selector(HEATMAP, timeout=60_000)
    tall_shot(page, "images_drawn", 4000)
