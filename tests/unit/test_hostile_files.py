"""What a checkpoint's weights and a model's tokenizer file may be (model/engine/weights_check.py,
model/data/tokenizer_files.py): the kinds of damage the red team loaded, each refused with a message naming the
file as assets/NAME. The same on a real server: tests/browser/test_hostile_checkpoints.py."""
import json
import os
from pathlib import Path

import pytest
import torch

from model.data import bpe, tokenizer_files
from model.engine import weights_check

SHIPPED = Path(__file__).resolve().parents[2] / "assets"


@pytest.mark.parametrize("dtype", [torch.complex64, torch.int8, torch.bool, torch.float64])
def test_weights_that_are_not_float32_16_or_bfloat16_are_refused(dtype):
    state = {"a.weight": torch.zeros(2, 2), "b.weight": torch.zeros(3, dtype=dtype)}
    assert weights_check.problem(state) == (f"tensor b.weight holds {str(dtype).removeprefix('torch.')} values; a "
                                            "model's weights are float32, float16, bfloat16")


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_weights_that_are_not_finite_are_refused_with_how_many(bad):
    t = torch.zeros(4, dtype=torch.float16)
    t[1] = t[3] = bad
    assert weights_check.problem({"w": torch.ones(2), "x": t}) == ("tensor x holds 2 values that are not finite "
                                                                   "numbers (NaN or infinity)")
    assert weights_check.problem({"w": torch.ones(2, dtype=torch.bfloat16)}) is None


@pytest.fixture
def assets(tmp_path, monkeypatch):
    monkeypatch.setattr(bpe, "ASSETS", tmp_path)
    (tmp_path / "good.json").write_text((SHIPPED / "bpe_8k.json").read_text())
    return tmp_path


def refused(file: str) -> str:
    with pytest.raises(ValueError) as e:
        tokenizer_files.bpe_tokenizer({"type": "bpe", "file": file})
    return str(e.value)


def test_the_shipped_tokenizer_file_loads(assets):
    assert len(tokenizer_files.bpe_tokenizer({"type": "bpe", "file": "good.json"})) == 8192


@pytest.mark.parametrize("file", ["/dev/zero", "/etc/hostname", "../good.json", "sub/../../x.json"])
def test_a_tokenizer_file_outside_assets_is_refused_unread(assets, file):
    assert "is outside assets: a model's tokenizer is read from there only" in refused(file)


def test_a_device_a_fifo_and_an_oversized_file_in_assets_are_refused_unread(assets):
    os.mkfifo(assets / "pipe.json")
    (assets / "zero.json").symlink_to("/dev/zero")
    assert refused("pipe.json") == "assets/pipe.json is not a regular file"
    assert "is outside assets" in refused("zero.json")                     # a link out is where it points
    with open(assets / "big.json", "wb") as f:
        f.truncate(tokenizer_files.MAX_BYTES + 1)
    assert refused("big.json") == "assets/big.json is 52,428,801 bytes; a tokenizer file is at most 52,428,800"


def damaged(assets, change) -> str:
    raw = json.loads((assets / "good.json").read_text())
    change(raw)
    (assets / "bad.json").write_text(json.dumps(raw))
    return refused("bad.json")


def test_damaged_tokenizer_files_are_refused_with_a_message_naming_them(assets):
    (assets / "text.json").write_text("hostname\n")
    assert refused("text.json").startswith("assets/text.json is not valid JSON (")
    (assets / "deep.json").write_text("[" * 100 + "]" * 100)
    assert refused("deep.json") == "assets/deep.json nests objects or arrays more than 32 levels deep"

    def huge(raw):
        raw["model"]["vocab"].update({f"x{i}": 10_000 + i for i in range(tokenizer_files.MAX_VOCAB)})
    assert damaged(assets, huge) == "assets/bad.json has 270,336 vocab; a tokenizer has at most 262,144"

    def no_bytes(raw):
        for piece in [p for p, i in raw["model"]["vocab"].items() if 10 < i < 60]:
            del raw["model"]["vocab"][piece]
    assert damaged(assets, no_bytes).startswith("assets/bad.json is not a tokenizer this app can read (")

    def duplicate_ids(raw):
        vocab = raw["model"]["vocab"]
        vocab[next(iter(p for p, i in vocab.items() if i == 100))] = 101
    assert damaged(assets, duplicate_ids).startswith("assets/bad.json is not a tokenizer this app can read (")

    def lossy(raw):
        raw["normalizer"] = {"type": "Lowercase"}
    assert damaged(assets, lossy).startswith("assets/bad.json is not a tokenizer this app can read (")
