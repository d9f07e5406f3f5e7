"""The commands fail cleanly: run as subprocesses, every wrong input gives exactly one line on stderr, `error: ...`,
exit status 2, nothing on stdout and no traceback. `python -m model.coref` takes only a model with a coreference
head; `python -m model.evaluate NAME` refuses a name that is not a shipped model instead of printing {}."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from model import checkpoints

ROOT = Path(__file__).resolve().parents[2]
TEXT = "The cat sat on the mat because it was tired."
CHOICES = ("coref_encoder, davit_digits, finetune_binary, finetune_cls, finetune_nsp, finetune_span, finetune_tag, "
           "general_encoder, general_gpt, imagegpt_digits, incontext_copy, minilm, relative_digits, sparse_encoder, "
           "swin_digits, swin_scenes, translator, translator_zh_en, vit_digits, vit_scenes, zh_coref, zh_encoder, "
           "zh_gpt")
TEXT_MODELS = ("coref_encoder, general_encoder, general_gpt, incontext_copy, minilm, sparse_encoder, translator, "
               "translator_zh_en, zh_coref, zh_encoder, zh_gpt")
COREF_MODELS = "coref_encoder, minilm, zh_coref"
# Runs a command's module as __main__ with model.checkpoints.ASSETS pointed at another folder first.
WITH_ASSETS = ("import runpy, sys; from pathlib import Path; from model import checkpoints; "
               "checkpoints.ASSETS = Path(sys.argv[1]); sys.argv = [sys.argv[2], *sys.argv[3:]]; "
               "runpy.run_module(sys.argv[0], run_name='__main__')")


def _fails(module: str, *args: str, assets: Path | None = None) -> str:
    """Run `python -m module args` (on another assets folder when given); assert the clean failure and return the
    one line of stderr."""
    cmd = ([sys.executable, "-c", WITH_ASSETS, str(assets), module, *args] if assets
           else [sys.executable, "-m", module, *args])
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 2, (out.returncode, out.stderr[-2000:])
    assert out.stdout == "" and "Traceback" not in out.stderr, out.stderr[-2000:]
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    return lines[0]


def _assets_with(tmp_path, *names: str) -> Path:
    """A folder holding copies of these shipped models' files (and the shared BPE)."""
    folder = tmp_path / "assets"
    folder.mkdir()
    shutil.copy(checkpoints.ASSETS / "bpe_8k.json", folder)
    for name in names:
        for ext in (".json", ".safetensors"):
            shutil.copy(checkpoints.ASSETS / f"{name}{ext}", folder)
    return folder


@pytest.mark.parametrize("model", ["general_encoder", "general_gpt", "vit_digits"])
def test_coref_takes_only_a_model_with_a_coreference_head(model):
    extra = ["--head", "0", "0"] if model == "general_gpt" else []      # a decoder, even with a head named
    line = _fails("model.coref", TEXT, "--model", model, *extra)
    assert line == f"error: {model} has no coreference head; models with one: {COREF_MODELS}"


def test_coref_refuses_an_unknown_model_and_a_path():
    line = _fails("model.coref", TEXT, "--model", "../assets/coref_encoder")
    assert line == f"error: no model '../assets/coref_encoder'; models with a coreference head: {COREF_MODELS}"


def test_coref_usage_errors_are_one_line():
    assert _fails("model.coref") == "error: the following arguments are required: text (see --help)"


def test_coref_names_a_damaged_checkpoint_and_its_rebuild(tmp_path):
    assets = _assets_with(tmp_path, "coref_encoder")
    w = assets / "coref_encoder.safetensors"
    w.write_bytes(w.read_bytes()[: w.stat().st_size // 2])
    line = _fails("model.coref", TEXT, assets=assets)
    assert line.startswith("error: assets/coref_encoder.safetensors: is truncated or corrupt (")   # not its path
    assert line.endswith("Rebuild it with `python -m model.train coref_encoder`.")


def test_evaluate_refuses_an_unknown_name():
    assert _fails("model.evaluate", "--json", "nosuch") == f"error: unknown model 'nosuch'; choose from {CHOICES}"


def test_evaluate_refuses_a_model_that_is_not_shipped_instead_of_printing_nothing(tmp_path):
    assets = _assets_with(tmp_path)                                     # no model at all
    line = _fails("model.evaluate", "--json", "vit_digits", assets=assets)
    assert line == (f"error: vit_digits is not shipped: {assets / 'vit_digits'}.safetensors or .json is missing. "
                    "Build it with `python -m model.train vit_digits`.")


def test_evaluate_names_a_damaged_config(tmp_path):
    assets = _assets_with(tmp_path, "vit_digits")
    meta = json.loads((assets / "vit_digits.json").read_text())
    meta["config"]["n_heads"] = 0
    (assets / "vit_digits.json").write_text(json.dumps(meta))
    line = _fails("model.evaluate", "--json", "vit_digits", assets=assets)
    assert line == ("error: assets/vit_digits.json: config.n_heads is 0; it must be an integer from 1 to 64. "
                    "Rebuild it with `python -m model.train vit_digits`.")


@pytest.mark.parametrize("model, says", [
    ("../assets/translator", f"no model '../assets/translator' in {checkpoints.ASSETS} (known: {TEXT_MODELS})"),
    ("vit_digits", f"vit_digits stores no text tokenizer (text models: {TEXT_MODELS})"),
])
def test_tokenize_refuses_a_model_without_a_text_tokenizer(model, says):
    assert _fails("model.tokenize", "hello", "--model", model, "--json") == f"error: {says}"


def test_tokenize_names_a_damaged_config(tmp_path):
    assets = _assets_with(tmp_path, "general_gpt")
    c = assets / "general_gpt.json"
    c.write_text(c.read_text()[:-2] + ', "notes": ' + "[" * 50_000 + "]" * 50_000 + "}")
    line = _fails("model.tokenize", "hello", "--model", "general_gpt", assets=assets)
    assert line == ("error: assets/general_gpt.json: nests objects or arrays more than 32 levels deep. "
                    "Rebuild it with `python -m model.train general_gpt`.")
