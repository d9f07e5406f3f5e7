"""Hostile checkpoint and tokenizer files on a real server (model/engine/weights_check.py,
model/data/tokenizer_files.py): the app runs on a copy of assets/ where coref_encoder's weights hold a NaN,
general_gpt's config names /etc/hostname as its tokenizer file, and general_encoder's names a 51 MB file. Before,
the NaN loaded silently (a page drew nan%), the outside file raised a raw tokenizers exception on every page that
used it (a device file there read until memory ran out), and every message showed the server's absolute path. Now
each model is refused in the sidebar with a message naming `assets/NAME`, and the pages keep working."""
import json
import shutil
import sys

import pytest
from safetensors.torch import load_file, save_file

from harness.server import ROOT, streamlit_server
from serve import wire

WRAPPER = """import sys
from pathlib import Path
sys.path.insert(0, {root!r})
from model import checkpoints
from model.data import bpe
checkpoints.ASSETS = bpe.ASSETS = Path({assets!r})
sys.argv[0] = {app!r}
exec(compile(Path({app!r}).read_text(), {app!r}, "exec"))
"""


@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    """A server on a copy of assets/ with three damaged models; yields (url, the copy's folder)."""
    root = tmp_path_factory.mktemp("damaged")
    assets = root / "assets"
    assets.mkdir()
    for f in (ROOT / "assets").iterdir():
        (assets / f.name).symlink_to(f, target_is_directory=f.is_dir())
    for name in ("coref_encoder", "general_gpt", "general_encoder"):
        (assets / f"{name}.json").unlink()
        shutil.copy(ROOT / "assets" / f"{name}.json", assets / f"{name}.json")
    state = load_file(str(ROOT / "assets" / "coref_encoder.safetensors"))
    first = next(iter(state))
    state[first] = state[first].clone()
    state[first].view(-1)[0] = float("nan")
    (assets / "coref_encoder.safetensors").unlink()
    save_file(state, str(assets / "coref_encoder.safetensors"))
    for name, file in (("general_gpt", "/etc/hostname"), ("general_encoder", "big.json")):
        meta = json.loads((assets / f"{name}.json").read_text())
        meta["tokenizer"] = {"type": "bpe", "file": file}
        (assets / f"{name}.json").write_text(json.dumps(meta))
    with open(assets / "big.json", "wb") as f:                     # 51 MB, sparse: nothing written
        f.truncate(51 << 20)
    script = root / "app_on_copy.py"
    script.write_text(WRAPPER.format(root=str(ROOT), assets=str(assets), app=str(ROOT / "app.py")))
    with streamlit_server(root / "server.log", script=script, python=sys.executable) as url:
        yield url, root


@pytest.mark.parametrize("model, says", [
    ("coref_encoder", "assets/coref_encoder.safetensors: tensor "),
    ("general_gpt", "the tokenizer file '/etc/hostname' is outside assets"),
    ("general_encoder", "assets/big.json is 53,477,376 bytes; a tokenizer file is at most 52,428,800"),
])
def test_a_damaged_model_is_refused_by_name_and_the_page_keeps_working(damaged, model, says):
    url, root = damaged
    with wire.session(url, timeout=180) as s:
        msgs = s.run("explorer", f"text_model={model}")
    assert not wire.elements(msgs, "exception"), [e.message for e in wire.elements(msgs, "exception")]
    shown = " ".join(wire.texts(msgs))
    assert says in shown, shown[:800]
    assert model != "coref_encoder" or "values that are not finite numbers (NaN or infinity)" in shown
    drawn = b"".join(m.SerializeToString() for m in msgs if m.WhichOneof("type") == "delta")   # what the page shows
    assert str(root).encode() not in drawn and str(ROOT).encode() not in drawn        # no server path
