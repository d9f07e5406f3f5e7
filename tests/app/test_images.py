"""The image page through AppTest: samples run end to end, the bad-image catalogue gives clear messages
and the page keeps working, the scenes Swin is compared with the ViT (Swin, DaViT and ImageGPT views:
tests/app/test_images_models.py)."""
import json

import pytest

from tests.app.conftest import infos, open_link, open_page
from tests.unit.test_images_catalogue import CATALOGUE


@pytest.fixture(scope="module")
def at():
    page = open_page("images.py")
    assert not page.exception
    return page


def _figures(at) -> dict:
    """key -> Plotly spec of every keyed chart on the page."""
    return {c.proto.id.split("-", 2)[-1]: json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def _texts(at) -> str:
    return " ".join(m.value for m in at.markdown)


def test_a_digit_sample_runs_end_to_end(at):
    at.radio(key="img_model").set_value("vit_digits").run()
    at.selectbox(key="img_digit").select_index(3).run()
    assert not at.exception and not at.error
    assert "The model answers **3**" in _texts(at) and "true answer for this sample is **3**" in _texts(at)
    headers = [h.value for h in at.header]
    assert headers[1].endswith("Preprocessing") and headers[5].endswith("rollout across layers")
    grid = _figures(at)["patch_grid"]
    assert grid["layout"]["title"]["text"].startswith("4×4 grid") and len(grid["layout"]["annotations"]) == 16


def test_picking_a_patch_as_query_keeps_the_page_whole(at):
    at.selectbox(key="img_query_vit_digits").set_value("p5").run()
    assert not at.exception
    assert "of p5's attention" in " ".join(c.value for c in at.caption)
    at.selectbox(key="img_query_vit_digits").set_value("<cls>").run()


@pytest.mark.parametrize("case", sorted(CATALOGUE))
def test_bad_image_catalogue_through_the_page(at, case):
    make, outcome, phrase = CATALOGUE[case]
    at.radio(key="img_source").set_value("Upload").run()
    at.file_uploader(key="img_upload").set_value(("upload.png", make(), "image/png")).run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    if outcome == "error":
        assert "This image cannot be used." in errors and phrase in errors
        assert not at.get("plotly_chart")                      # nothing half-drawn
    else:
        assert not errors
        notes = " ".join(i.value for i in at.info)
        assert phrase in notes
        assert "The model answers" in _texts(at)


def test_a_non_digit_upload_comes_with_a_caution_and_a_sample_does_not(at):
    from tests.unit.test_digit_check import screenshot_png
    at.radio(key="img_model").set_value("vit_digits").run()
    at.radio(key="img_source").set_value("Upload").run()
    at.file_uploader(key="img_upload").set_value(("screenshot.png", screenshot_png(), "image/png")).run()
    assert not at.exception and "The model answers" in _texts(at)
    caution = [w.value for w in at.warning if w.value.startswith("Caution")]
    assert len(caution) == 1
    assert caution[0].startswith("Caution: this image is not like the handwritten digits the model learned from. ")
    assert "The model always answers one of 0–9" in caution[0] and "of its 64 pixels" in caution[0]
    at.radio(key="img_source").set_value("Sample").run()
    assert not [w for w in at.warning if w.value.startswith("Caution")]


def test_heads_shown_side_by_side_share_one_colour_scale(at):
    at.radio(key="img_model").set_value("vit_digits").run()
    figures = _figures(at)
    overlays = [figures[f"overlay_{h}"]["data"][1] for h in range(4)]
    assert len({o["zmax"] for o in overlays}) == 1
    grid = [t for t in figures["head_grid"]["data"] if t["type"] == "heatmap"]
    assert len({t["zmax"] for t in grid}) == 1 and sum(bool(t.get("showscale")) for t in grid) == 1


def test_the_page_recovers_after_a_bad_upload(at):
    at.radio(key="img_source").set_value("Upload").run()
    at.file_uploader(key="img_upload").set_value(("x.png", b"", "image/png")).run()
    assert at.error
    at.radio(key="img_source").set_value("Sample").run()
    assert not at.error and not at.exception and "The model answers" in _texts(at)


def test_the_scenes_swin_compares_with_the_vit_on_one_scale(at):
    at.radio(key="img_source").set_value("Sample").run()
    at.radio(key="img_model").set_value("swin_scenes").run()
    assert not at.exception and not at.error
    figs = _figures(at)
    assert {"stages", "windows_0", "windows_1", "cmp_vit_scenes", "cmp_swin_scenes"} <= set(figs)
    assert len({figs[k]["data"][1]["zmax"] for k in ("cmp_vit_scenes", "cmp_swin_scenes")}) == 1
    table = next(t.value for t in at.table if "ms per image" in t.value.columns)
    assert list(table["model"]) == ["ViT · which shape is red?", "Swin · which shape is red?"]
    assert table["attention pairs per layer"].iloc[0] == " · ".join(["5,476"] * 4)     # 4 heads × 37², 4 layers


def test_draw_waits_for_a_drawing_without_error(at):
    at.radio(key="img_model").set_value("vit_digits").run()
    at.radio(key="img_source").set_value("Draw").run()
    assert not at.exception and not at.error
    assert "Draw a digit" in " ".join(i.value for i in at.info)
    at.radio(key="img_model").set_value("vit_scenes").run()
    assert not at.exception and at.radio(key="img_draw_colour").value == "red"
    assert "exactly one of them red" in " ".join(i.value for i in at.info)
    at.radio(key="img_source").set_value("Sample").run()


def test_a_chinese_link_names_the_model_and_source_by_their_chinese_labels():
    """With lang=zh the radios show, and the address holds, the Chinese labels: a link from the Chinese page opens
    what it names, and so does an English label (a link from the English page); a name no model has gets the Chinese
    notice and the default."""
    at = open_link("images.py", lang="zh", img_model="Swin · 哪个形状是红色的？", img_source="上传")
    assert at.radio(key="img_model").value == "swin_scenes" and at.radio(key="img_source").value == "Upload"
    assert not [i for i in infos(at) if i.startswith("链接要求")]
    at = open_link("images.py", lang="zh", img_model="Swin · which shape is red?", img_source="Upload")
    assert at.radio(key="img_model").value == "swin_scenes" and at.radio(key="img_source").value == "Upload"
    assert not [i for i in infos(at) if i.startswith("链接要求")]
    at = open_link("images.py", lang="zh", img_model="Swin · which shape is blue?")
    assert at.radio(key="img_model").value == "vit_digits"
    assert "链接要求的模型“Swin · which shape is blue?”现在不在本页上；显示“ViT · 手写数字”。" in infos(at)


def test_a_chinese_link_opened_in_english_picks_the_upload_source():
    """上传 translates both "Upload" (the source radio) and "upload" (the box a link reopens): a link from the Chinese
    page opened in English picks the Upload source, without a stale-link notice."""
    at = open_link("images.py", img_model="Swin · 哪个形状是红色的？", img_source="上传")
    assert at.radio(key="img_model").value == "swin_scenes" and at.radio(key="img_source").value == "Upload"
    assert not [i for i in infos(at) if i.startswith("The link asked")]
