"""What the explorer page sends the browser at 512 tokens stays small: the grid is one image, only
one head (and the rollout) go at full resolution. Measured on the page's protobuf elements (AppTest)."""
from unittest import mock

import pytest

from app_pages import _runs
from model import checkpoints
from tests.app.conftest import open_page
from tests.conftest import save_random_text_model

NAME = "explorer_payload_test"
TEXT = "The restaurant refused to serve me a ham sandwich because it only cooks vegetarian food. "
MAX_PAGE_BYTES = 5_000_000        # all elements of the page, 512 tokens, 6 layers × 8 heads
MAX_GRID_BYTES = 400_000          # the all-heads figure (one palette PNG, ≤ 720 px a side)


def elements(node):
    if hasattr(node, "children"):
        for child in node.children.values():
            yield from elements(child)
    else:
        yield node


@pytest.fixture(scope="module")
def long_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("assets")
    model, _ = save_random_text_model(folder, NAME, TEXT, d_model=64, n_heads=8, n_layers=6, d_ff=64, max_len=512)
    with mock.patch.object(checkpoints, "ASSETS", folder):
        yield model.config
    _runs.explorer_run.clear()
    _runs.explorer_word_weights.clear()


def test_page_bytes_at_512_tokens_are_capped_and_the_grid_is_an_image(long_model):
    at = open_page("explorer.py", timeout=180)
    at.text_area(key="explorer_text").input(TEXT * 40).run(timeout=180)
    assert not at.exception, [e.message for e in at.exception]
    assert any("reads at most 512" in w.value for w in at.warning)
    sizes = {getattr(e.proto, "id", "") or type(e).__name__: e.proto.ByteSize()
             for e in elements(at._tree) if getattr(e, "proto", None) is not None}
    grid = next(v for k, v in sizes.items() if k.endswith("explorer_grid"))
    zoom = next(v for k, v in sizes.items() if k.endswith("explorer_zoom"))
    total = sum(sizes.values())
    weights_as_float32 = 6 * 8 * 512 * 512 * 4
    assert grid < MAX_GRID_BYTES, grid
    assert zoom > 512 * 512 * 4                 # the zoom does carry every weight of its head
    assert total < MAX_PAGE_BYTES, sorted(sizes.items(), key=lambda kv: -kv[1])[:5]
    assert total < weights_as_float32 / 10
