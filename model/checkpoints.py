"""Checkpoints: assets/<name>.safetensors (weights) + assets/<name>.json (architecture, config,
tokenizer, training recipe, metrics at training time). Never pickle."""
import importlib
import json
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

ASSETS = Path(__file__).resolve().parent.parent / "assets"


class CheckpointError(RuntimeError):
    """A shipped model could not be loaded; the message names the file and the retrain command."""


def retrain_hint(name: str) -> str:
    return f"python -m model.train {name}"


def _fail(name: str, path: Path, why: str):
    raise CheckpointError(f"{path}: {why}. Rebuild it with `{retrain_hint(name)}`.")


def save(name: str, model: torch.nn.Module, meta: dict, assets: Path | None = None) -> Path:
    """Write <name>.safetensors and <name>.json. meta must hold "arch" ("module:Class") and
    "config"; the rest (tokenizer, recipe, metrics) is kept as given."""
    assets = Path(assets or ASSETS)
    assets.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(assets / f"{name}.safetensors"))
    meta = {"name": name, "retrain": retrain_hint(name), **meta}
    (assets / f"{name}.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    return assets / f"{name}.json"


def read_meta(name: str, assets: Path | None = None) -> dict:
    path = Path(assets or ASSETS) / f"{name}.json"
    if not path.is_file():
        _fail(name, path, "file is missing")
    try:
        meta = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        _fail(name, path, f"not valid JSON ({e})")
    if not isinstance(meta, dict) or "arch" not in meta or "config" not in meta:
        _fail(name, path, "lacks the 'arch' and 'config' entries")
    return meta


def build(meta: dict) -> torch.nn.Module:
    """Instantiate meta["arch"] ("model.x:Class", a class of this package) from meta["config"]."""
    module, _, cls = meta["arch"].partition(":")
    if not module.startswith("model."):
        raise ValueError(f"architecture {meta['arch']!r} is not part of this package")
    return getattr(importlib.import_module(module), cls).from_config(meta["config"])


def load(name: str, assets: Path | None = None, device="cpu") -> tuple[torch.nn.Module, dict]:
    """Returns (model in eval mode on device, meta). Raises CheckpointError naming the file.
    `assets` defaults to the module's ASSETS, read at call time (tests may point it elsewhere)."""
    assets = Path(assets or ASSETS)
    meta = read_meta(name, assets)
    path = assets / f"{name}.safetensors"
    if not path.is_file():
        _fail(name, path, "file is missing")
    try:
        model = build(meta)
    except (ValueError, TypeError, KeyError, AttributeError, ImportError) as e:
        _fail(name, assets / f"{name}.json", f"config does not build a model ({e})")
    try:
        state = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as e:
        _fail(name, path, f"is truncated or corrupt ({e})")
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        first = str(e).strip().splitlines()
        _fail(name, path, "does not match its config (" + " ".join(first[:3])[:300] + ")")
    return model.to(device).eval(), meta


def shipped(assets: Path | None = None) -> list[str]:
    """Names of every model in assets/ (those with a JSON next to safetensors)."""
    assets = Path(assets or ASSETS)
    return sorted(p.stem for p in assets.glob("*.safetensors") if (assets / f"{p.stem}.json").is_file())
