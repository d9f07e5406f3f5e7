"""One base class for errors a user can cause: every input error of the library is an InputError (what the
pages catch and show), and a bug (a TypeError, a missing model file) is not. The model raises it with an English
message id and its values, and imports no translation: the page that shows it translates it."""
import ast
from pathlib import Path

import numpy as np
import pytest

import i18n
from model.checkpoints import CheckpointError
from model.data import offset_digits
from model.data.images import ImageError, load_image
from model.engine import device, masks
from model.engine.errors import InputError
from model.tasks.fill_mask import FillMaskError
from model.tasks.generation import GenerationError
from model.tasks.translation import SourceError

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("cls", [ImageError, GenerationError, SourceError, FillMaskError])
def test_every_user_facing_error_is_an_input_error(cls):
    assert issubclass(cls, InputError) and issubclass(cls, ValueError)


def test_a_bad_upload_raises_an_input_error_with_its_message():
    with pytest.raises(InputError, match="empty"):
        load_image(b"")


def test_bad_mask_parameters_raise_input_errors_with_their_message():
    with pytest.raises(InputError, match="do not fill rows of 8"):
        masks.build("swin", 20, grid_w=8, window=4)
    with pytest.raises(InputError, match="unknown mask pattern 'diagonal'"):
        masks.build("diagonal", 8)


def test_a_missing_model_is_not_an_input_error():
    assert not issubclass(CheckpointError, InputError)
    with pytest.raises(TypeError):          # a programming error stays what it is
        masks.build("window", "eight")
    assert np.array_equal(masks.build("full", 3), np.ones((3, 3), bool))


@pytest.fixture
def chinese():
    i18n.set_language("zh")
    yield
    i18n.set_language("en")


def test_an_input_error_keeps_its_message_id_and_values_and_the_page_translates_it(chinese):
    with pytest.raises(InputError) as e:
        masks.build("swin", 20, grid_w=8, window=4)
    assert (e.value.message, e.value.params) == (
        "N={n} patches do not fill rows of {w}: choose N a multiple of the grid width", {"n": 20, "w": 8})
    assert str(e.value) == "N=20 patches do not fill rows of 8: choose N a multiple of the grid width"
    assert e.value.shown(i18n._) == "N=20 个图块排不满每行 8 个的网格：请把 N 设为网格宽度的倍数"
    with pytest.raises(InputError) as e:
        offset_digits.parse("314")
    assert isinstance(e.value, ValueError) and str(e.value) == "The row has 3 digits; type between 4 and 64."
    assert e.value.shown(i18n._) == "这一行有 3 个数字；请输入 4 到 64 个。"


def test_a_device_notice_and_an_image_stage_are_translated_where_they_are_shown(chinese, monkeypatch):
    monkeypatch.setattr(device, "available", lambda: ["cpu"])
    notice = device.resolve("cuda")[1]
    assert str(notice) == "CUDA is not available on this machine; running on CPU."
    assert notice.shown(i18n._) == "本机没有 CUDA；在 CPU 上运行。"


def test_text_with_braces_and_no_values_is_shown_as_it_is():
    assert InputError("a set {x} typed as is").shown(i18n._) == "a set {x} typed as is"


def i18n_imports(path: Path) -> list[str]:
    """The names a file imports from i18n (`import i18n` counts as "i18n")."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "i18n":
            names += [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            names += ["i18n" for a in node.names if a.name == "i18n"]
    return names


def test_the_engine_and_the_data_import_no_translation():
    found = {str(p.relative_to(ROOT)): i18n_imports(p)
             for package in ("engine", "data") for p in (ROOT / "model" / package).rglob("*.py")}
    assert {k: v for k, v in found.items() if v} == {}
