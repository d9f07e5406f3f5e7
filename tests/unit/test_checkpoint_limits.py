"""Damaged or hostile files in a temporary assets/ folder: each one is refused with a CheckpointError naming the
file and the rebuild command, fast and before anything large is allocated; nothing else escapes (no
RecursionError, ZeroDivisionError or raw RuntimeError)."""
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from model import checkpoints
from model.checkpoints import CheckpointError
from tests.conftest import save_random_text_model

ROOT = Path(__file__).resolve().parents[2]

NAME = "tiny"
HINT = f"Rebuild it with `python -m model.train {NAME}`"
SIZES = dict(d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=16)


@pytest.fixture
def assets(tmp_path):
    save_random_text_model(tmp_path, NAME, "the cat sat on the mat", **SIZES)
    return tmp_path


def _meta(assets) -> dict:
    return json.loads((assets / f"{NAME}.json").read_text())


def _write_meta(assets, meta: dict):
    (assets / f"{NAME}.json").write_text(json.dumps(meta))


def _refused(assets, *parts: str, file: str = f"{NAME}.json") -> str:
    """Loading fails with a CheckpointError naming `file`, the rebuild command and every part; its message."""
    with pytest.raises(CheckpointError) as e:
        checkpoints.load(NAME, assets)
    msg = str(e.value)
    assert f"{assets.name}/{file}" in msg and str(assets) not in msg and HINT in msg, msg   # never the server's path
    for part in parts:
        assert part in msg, msg
    return msg


def test_the_untouched_checkpoint_loads(assets):
    model, meta = checkpoints.load(NAME, assets)
    assert model.config.d_model == 16 and meta["name"] == NAME


def test_deeply_nested_json_is_refused_without_recursion_error(assets):
    meta = json.dumps(_meta(assets))
    deep = meta[:-1] + ', "recipe": ' + "[" * 200_000 + "]" * 200_000 + "}"       # valid JSON, 200,000 levels
    (assets / f"{NAME}.json").write_text(deep)
    start = time.perf_counter()
    _refused(assets, "nests objects or arrays more than 32 levels deep")
    with pytest.raises(CheckpointError, match="32 levels"):
        checkpoints.read_meta(NAME, assets)                # what the sidebar and every page read
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("levels, refused", [(31, False), (32, True)])
def test_nesting_limit_counts_objects_and_arrays_not_brackets_in_strings(assets, levels, refused):
    meta = _meta(assets)                                   # the meta object is level 1; the recipe adds `levels`
    meta["recipe"] = {"note": "[[[[{{{{ ]]]] not structure"}
    text = json.dumps(meta)[:-1] + ', "extra": ' + "[" * levels + "]" * levels + "}"
    (assets / f"{NAME}.json").write_text(text)
    if refused:
        _refused(assets, "more than 32 levels deep")
    else:
        assert checkpoints.load(NAME, assets)[1]["extra"] is not None


def test_oversized_config_file_is_refused_unread(assets):
    meta = _meta(assets)
    meta["notes"] = "x" * (2 << 20)
    _write_meta(assets, meta)
    _refused(assets, "a model's config file is at most 1,048,576")


@pytest.mark.parametrize("key, value, says", [
    ("d_model", 8192, "config.d_model is 8192; it must be an integer from 1 to 1,024"),
    ("n_heads", 0, "config.n_heads is 0; it must be an integer from 1 to 64"),
    ("n_layers", -1, "config.n_layers is -1"),
    ("d_ff", "512", "config.d_ff is '512'"),
    ("max_len", 16.0, "config.max_len is 16.0"),
    ("vocab_size", True, "config.vocab_size is True"),
    ("n_heads", 3, "d_model=16 must split evenly across n_heads=3"),
])
def test_config_sizes_must_be_bounded_integers(assets, key, value, says):
    meta = _meta(assets)
    meta["config"][key] = value
    _write_meta(assets, meta)
    start = time.perf_counter()
    _refused(assets, says)
    with pytest.raises(CheckpointError, match="config"):
        checkpoints.read_meta(NAME, assets)                # refused before any model is built
    assert time.perf_counter() - start < 5


def test_config_that_is_not_an_object_is_refused(assets):
    meta = _meta(assets)
    meta["config"] = [16, 2]
    _write_meta(assets, meta)
    _refused(assets, "lacks the 'arch' (text) and 'config' (object) entries")


@pytest.mark.parametrize("keep", [1 / 3, 0.999])
def test_truncated_weights_are_refused(assets, keep):
    w = assets / f"{NAME}.safetensors"
    data = w.read_bytes()
    w.write_bytes(data[: int(len(data) * keep)])
    _refused(assets, "is truncated or corrupt", file=f"{NAME}.safetensors")


def test_header_cut_short_is_refused(assets):
    w = assets / f"{NAME}.safetensors"
    w.write_bytes(w.read_bytes()[:20])
    _refused(assets, "is truncated or corrupt", file=f"{NAME}.safetensors")


def test_tensor_of_the_wrong_shape_is_named_with_both_shapes(assets):
    w = assets / f"{NAME}.safetensors"
    state = load_file(str(w))
    key = "encoder.layers.0.self_attn.w_q.weight"
    assert tuple(state[key].shape) == (16, 16)             # d_model × d_model by construction
    state[key] = torch.zeros(16, 8)
    save_file(state, str(w))
    _refused(assets, f"{key} is [16, 8] in the file, [16, 16] in the config", file=f"{NAME}.safetensors")


def test_missing_and_extra_tensors_are_named(assets):
    w = assets / f"{NAME}.safetensors"
    state = load_file(str(w))
    state["surprise"] = state.pop("lm_head.bias")
    save_file(state, str(w))
    _refused(assets, "lm_head.bias is missing", "surprise is not in the model", file=f"{NAME}.safetensors")


def test_name_that_leaves_the_folder_is_refused(assets):
    with pytest.raises(CheckpointError, match="is not a model name"):
        checkpoints.load(f"../{assets.name}/{NAME}", assets)


BIG_WITHIN_LIMITS = r"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))   # a real build would need ~4 GB
from model import checkpoints
folder = sys.argv[1]
path = f"{folder}/tiny.json"
meta = json.load(open(path))
meta["config"].update(d_model=1024, n_heads=16, n_layers=48, d_ff=8192)
json.dump(meta, open(path, "w"))
try:
    checkpoints.load("tiny", folder)
except checkpoints.CheckpointError as e:
    print(e)
"""


def test_large_config_that_does_not_match_the_file_fails_before_allocating(assets):
    """Every size within its limit, but the model is ~1e9 parameters and the file holds a tiny one: the header
    comparison refuses it on the meta device; building it for real under a 1.5 GB address-space limit would fail
    with an allocation error instead."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", BIG_WITHIN_LIMITS, str(assets)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    msg = out.stdout
    assert re.search(r"does not match its config \(embed\.tok\.weight is \[\d+, 16\] in the file, \[\d+, 1024\] in "
                     r"the config; ", msg), msg
    assert HINT in msg
    assert time.perf_counter() - start < 120


def test_image_config_with_too_many_patches_is_refused(tmp_path):
    for ext in (".json", ".safetensors"):
        shutil.copy(checkpoints.ASSETS / f"swin_scenes{ext}", tmp_path)
    meta = json.loads((tmp_path / "swin_scenes.json").read_text())
    meta["config"].update(image_size=512, patch_size=1, window=2)      # (N, N) masks at N = 262,144
    (tmp_path / "swin_scenes.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError) as e:
        checkpoints.load("swin_scenes", tmp_path)
    assert "512×512 = 262,144 patches; at most 1,024" in str(e.value)
    assert "python -m model.train swin_scenes" in str(e.value)


def test_every_shipped_model_loads_without_importing_torch_dynamo():
    """The header comparison builds each model on the meta device; doing arithmetic there would import
    torch._dynamo (seconds, once per process) before the first page could show a model."""
    code = ("import sys; from model import checkpoints\n"
            "names = checkpoints.shipped()\n"
            "print(len([checkpoints.load(n) for n in names]), 'torch._dynamo' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == [str(len(checkpoints.shipped())), "False"]
