"""Checkpoints: assets/<name>.safetensors (weights) + assets/<name>.json (architecture, config,
tokenizer, training recipe, metrics at training time). Never pickle.

Loading cannot hurt the app: the config file is bounded in size and nesting before it is parsed, its sizes are
bounded integers (model.engine.config.SIZE_LIMITS), and the tensors the config asks for are compared with the
safetensors header (the model built on the "meta" device, which allocates nothing) before any weight is built or
read. Every failure is a CheckpointError naming the file and the command that rebuilds it."""
import importlib
import json
import re
from functools import lru_cache
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file
from torch.overrides import TorchFunctionMode

from model import kinds, pretrained
from model.data import packaged
from model.data.json_depth import json_depth_exceeds
from model.engine import weights_check
from model.engine.cache_sizes import ASSET_FOLDERS
from model.engine.config import check_sizes

ASSETS = Path(__file__).resolve().parent.parent / "assets"
MAX_META_BYTES = 1 << 20          # a config file with its tokenizer; the shipped ones are under 4 KB
MAX_JSON_DEPTH = 32               # nesting of objects and arrays in a config file (the shipped ones: 4)
MAX_WEIGHTS_BYTES = 256 << 20     # a weights file; the shipped ones are under 6 MB
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")


class CheckpointError(RuntimeError):
    """A shipped model could not be loaded; the message names the file and the retrain command."""


def retrain_hint(name: str) -> str:
    return f"python -m model.train {name}"


def _fail(name: str, path: Path, why: str):
    raise CheckpointError(f"{weights_check.shown(path)}: {why}. Rebuild it with `{retrain_hint(name)}`.")


def save(name: str, model: torch.nn.Module, meta: dict, assets: Path | None = None) -> Path:
    """Write <name>.safetensors and <name>.json. meta must hold "arch" ("module:Class") and
    "config"; the rest (tokenizer, recipe, metrics) is kept as given. meta["kind"] is the model's own
    (model.kinds.of_model) unless meta gives one."""
    assets = Path(assets or ASSETS)
    assets.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(assets / f"{name}.safetensors"))
    meta = {"name": name, "retrain": retrain_hint(name), "kind": meta.get("kind") or kinds.of_model(model), **meta}
    (assets / f"{name}.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    return assets / f"{name}.json"


def _path(name: str, assets: Path | None, suffix: str) -> Path:
    """assets/<name><suffix>; a name that could leave the folder is refused."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise CheckpointError(f"{name!r} is not a model name (letters, digits, '_', '-' and '.')")
    return Path(assets or ASSETS) / f"{name}{suffix}"


def read_meta(name: str, assets: Path | None = None) -> dict:
    """The parsed assets/<name>.json, checked: at most MAX_META_BYTES, nested at most MAX_JSON_DEPTH deep, an
    object with "arch" (a string), "kind" (one of model.kinds.KINDS) and "config" (an object whose sizes are
    within SIZE_LIMITS)."""
    path = _path(name, assets, ".json")
    if not path.is_file():
        _fail(name, path, "file is missing")
    size = path.stat().st_size
    if size > MAX_META_BYTES:
        _fail(name, path, f"is {size:,} bytes; a model's config file is at most {MAX_META_BYTES:,}")
    try:
        text = path.read_bytes().decode("utf-8")
    except (UnicodeDecodeError, OSError) as e:
        _fail(name, path, f"cannot be read as UTF-8 text ({e})")
    if json_depth_exceeds(text, MAX_JSON_DEPTH):
        _fail(name, path, f"nests objects or arrays more than {MAX_JSON_DEPTH} levels deep")
    try:
        meta = json.loads(text)
    except ValueError as e:                       # JSONDecodeError, or an integer of too many digits
        _fail(name, path, f"not valid JSON ({e})")
    if not isinstance(meta, dict) or not isinstance(meta.get("arch"), str) or not isinstance(meta.get("config"), dict):
        _fail(name, path, "lacks the 'arch' (text) and 'config' (object) entries")
    if kinds.problem(meta):
        _fail(name, path, kinds.problem(meta))
    try:
        check_sizes(meta["config"])
    except ValueError as e:
        _fail(name, path, str(e))
    return meta


def architecture(meta: dict) -> type:
    """The class named by meta["arch"] ("model.x:Class", a class of this package), imported."""
    module, _, cls = meta["arch"].partition(":")
    if not module.startswith("model."):
        raise ValueError(f"architecture {meta['arch']!r} is not part of this package")
    return getattr(importlib.import_module(module), cls)


def build(meta: dict) -> torch.nn.Module:
    """Instantiate meta["arch"] from meta["config"]."""
    return architecture(meta).from_config(meta["config"])


_BUILD_ERRORS = (ValueError, TypeError, KeyError, AttributeError, ImportError, ZeroDivisionError, RuntimeError)


class _Unfilled(TorchFunctionMode):
    """Inside `torch.device("meta")`: initialisers (torch.nn.init's, Tensor.normal_/uniform_) return their tensor as
    it is and random factories (torch.randn, torch.rand) become torch.empty. A meta tensor holds no values, and
    torch's meta versions of these import torch._dynamo on first use (seconds). Modes are thread-local: other
    sessions' models are untouched."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (torch.Tensor.normal_, torch.Tensor.uniform_) or getattr(func, "__module__", "") == "torch.nn.init":
            return args[0] if args else kwargs["tensor"]
        if func in (torch.randn, torch.rand):
            return torch.empty(*args, **{k: v for k, v in kwargs.items() if k != "generator"})
        return func(*args, **kwargs)


def _header_shapes(name: str, path: Path) -> dict[str, tuple[int, ...]]:
    """Tensor name -> shape, from the safetensors header alone (no tensor is read)."""
    try:
        with safe_open(str(path), framework="pt") as f:
            return {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}
    except (SafetensorError, OSError, ValueError) as e:
        _fail(name, path, f"is truncated or corrupt ({e})")


def _check_shapes(name: str, path: Path, meta: dict):
    """Compare the tensors the config asks for (the model built on the meta device) with the file's header."""
    try:
        cls = architecture(meta)                  # imported outside the meta device: module constants stay real
        with torch.device("meta"), _Unfilled():
            expected = {k: tuple(v.shape) for k, v in cls.from_config(meta["config"]).state_dict().items()}
    except _BUILD_ERRORS as e:
        _fail(name, path.with_suffix(".json"), f"config does not build a model ({e})")
    found = _header_shapes(name, path)
    problems = [f"{k} is {list(found[k])} in the file, {list(v)} in the config" for k, v in expected.items()
                if k in found and found[k] != v]
    problems += [f"{k} is missing" for k in expected if k not in found]
    problems += [f"{k} is not in the model" for k in found if k not in expected]
    if problems:
        more = f" and {len(problems) - 3} more" if len(problems) > 3 else ""
        _fail(name, path, "does not match its config (" + "; ".join(problems[:3])[:300] + more + ")")


def _load_packaged(name: str, meta: dict, device) -> tuple[torch.nn.Module, dict]:
    """A model whose weights an installed package holds (model.pretrained), checked by its sha256."""
    try:
        state = pretrained.state_dict(meta)
        model = build(meta)
    except packaged.PackageMissing as e:
        raise CheckpointError(f"{name}: {e}") from None
    except (ValueError, KeyError, SafetensorError) as e:
        raise CheckpointError(f"{name}: {e}") from None
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        first = str(e).strip().splitlines()
        raise CheckpointError(f"{name}: the package's weights do not match assets/{name}.json ("
                              + " ".join(first[:3])[:300] + ")") from None
    return model.to(device).eval(), meta


def load(name: str, assets: Path | None = None, device="cpu") -> tuple[torch.nn.Module, dict]:
    """Returns (model in eval mode on device, meta). Raises CheckpointError naming the file.
    `assets` defaults to the module's ASSETS, read at call time (tests may point it elsewhere).
    Nothing is allocated for the weights until the file's header matches the config. A model whose meta names
    a package ("weights") is read from that installed package (model.pretrained)."""
    meta = read_meta(name, assets)
    if pretrained.is_packaged(meta):
        return _load_packaged(name, meta, device)
    path = _path(name, assets, ".safetensors")
    if not path.is_file():
        _fail(name, path, "file is missing")
    if path.stat().st_size > MAX_WEIGHTS_BYTES:
        _fail(name, path, f"is {path.stat().st_size:,} bytes; a model's weights are at most {MAX_WEIGHTS_BYTES:,}")
    _check_shapes(name, path, meta)
    try:
        model = build(meta)
    except _BUILD_ERRORS as e:
        _fail(name, path.with_suffix(".json"), f"config does not build a model ({e})")
    try:
        state = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as e:
        _fail(name, path, f"is truncated or corrupt ({e})")
    if (why := weights_check.problem(state)) is not None:
        _fail(name, path, why)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        first = str(e).strip().splitlines()
        _fail(name, path, "does not match its config (" + " ".join(first[:3])[:300] + ")")
    return model.to(device).eval(), meta


@lru_cache(maxsize=ASSET_FOLDERS)
def _packaged_in(folder: str, stamps: tuple) -> dict[str, str]:
    """{model name: its package} for the JSON files of `folder` that name package weights (stamps: the files'
    names and modification times, so that a changed file is read again)."""
    out = {}
    for stem, _ in stamps:
        try:
            meta = read_meta(stem, Path(folder))
        except CheckpointError:
            continue
        if pretrained.is_packaged(meta):
            out[stem] = meta["weights"]["package"]
    return out


def packaged_models(assets: Path | None = None) -> dict[str, str]:
    """{name: package} of the models in assets/ whose weights an installed-or-not package holds."""
    assets = Path(assets or ASSETS)
    stamps = tuple(sorted((p.stem, p.stat().st_mtime_ns) for p in assets.glob("*.json")
                          if _NAME.fullmatch(p.stem) and p.stat().st_size <= MAX_META_BYTES
                          and not (assets / f"{p.stem}.safetensors").exists()))
    return _packaged_in(str(assets), stamps)


def shipped_where(test, assets: Path | None = None) -> list[str]:
    """Shipped models whose meta passes `test(meta)` (models whose files cannot be read are left out)."""
    out = []
    for name in shipped(assets):
        try:
            if test(read_meta(name, assets)):
                out.append(name)
        except CheckpointError:
            continue
    return out


def shipped(assets: Path | None = None) -> list[str]:
    """Names of every model in assets/: those with a JSON next to safetensors, and those whose JSON names an
    installed package's weights (model.pretrained)."""
    assets = Path(assets or ASSETS)
    own = [p.stem for p in assets.glob("*.safetensors")
           if _NAME.fullmatch(p.stem) and (assets / f"{p.stem}.json").is_file()]
    return sorted(own + [n for n, package in packaged_models(assets).items() if packaged.installed(package)])
