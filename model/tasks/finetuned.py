"""Shipped fine-tuned models: assets/finetune/<name>.safetensors holds only what fine-tuning added to the
pre-trained encoder named in <name>.json ("base", today general_encoder): "full.*" (the head and every encoder
weight, fine-tuned; the token-embedding table too where the head's "train_embeddings" is true) and "frozen.*" (the
head trained on the frozen encoder), in float16. Loading rebuilds both on a copy of the pre-trained model; the
pre-trained files are only read. The files are checked as model/checkpoints.py checks a model: bounded sizes, the
header's tensors against the ones expected."""
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import load_file, save_file

from model import checkpoints
from model.checkpoints import CheckpointError, retrain_hint
from model.engine.config import ModelConfig
from model.tasks.heads import HeadedEncoder

FOLDER = "finetune"
VARIANTS = ("full", "frozen")
MAX_BYTES = 16 << 20          # one fine-tuned model: under 4 MB today


@dataclass(frozen=True)
class FineTuned:
    """A shipped fine-tuning: the pre-trained encoder, the two fine-tuned models (eval mode) and the meta."""
    base: torch.nn.Module
    full: HeadedEncoder
    frozen: HeadedEncoder
    meta: dict

    @property
    def labels(self) -> list[str]:
        return self.meta["head"]["labels"]


def folder(assets: Path | None = None) -> Path:
    return Path(assets or checkpoints.ASSETS) / FOLDER


def shipped(assets: Path | None = None) -> list[str]:
    return checkpoints.shipped(folder(assets))


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def save(name: str, models: dict, meta: dict, assets: Path | None = None) -> Path:
    """Write assets/finetune/<name>.safetensors (the fine-tuned tensors of both variants, float16) and .json."""
    out = folder(assets)
    out.mkdir(parents=True, exist_ok=True)
    tensors = {f"{v}.{k}": t.half().contiguous() for v in VARIANTS for k, t in
               models[v].shipped_state(v == "frozen").items()}
    save_file(tensors, str(out / f"{name}.safetensors"))
    path = out / f"{name}.json"
    meta = {"name": name, "retrain": retrain_hint(name), "kind": models["full"].model_kind, **meta}
    path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n")
    return path


def _fail(name: str, path: Path, why: str):
    raise CheckpointError(f"{path}: {why}. Rebuild it with `{retrain_hint(name)}`.")


def load(name: str, assets: Path | None = None) -> FineTuned:
    """The shipped fine-tuning `name`; CheckpointError naming the file when it is missing, too large, or holds
    other tensors than its head and base call for."""
    where = folder(assets)
    meta = checkpoints.read_meta(name, where)                 # bounded, nested at most 32 deep, sizes checked
    path = where / f"{name}.safetensors"
    if not path.is_file():
        _fail(name, path, "file is missing")
    if path.stat().st_size > MAX_BYTES:
        _fail(name, path, f"is {path.stat().st_size:,} bytes; a fine-tuned model is at most {MAX_BYTES:,}")
    head = meta.get("head", {})
    base, _base_meta = checkpoints.load(meta.get("base", "general_encoder"), assets)
    if base.config != ModelConfig.from_dict(meta["config"]):
        _fail(name, path.with_suffix(".json"), f"its config is not that of {meta.get('base')!r}")
    try:
        made = {v: HeadedEncoder(base, head["kind"], int(head["n_out"]), bool(head.get("train_embeddings", False)))
                for v in VARIANTS}
    except (KeyError, TypeError, ValueError) as e:
        _fail(name, path.with_suffix(".json"), f"has no usable 'head' entry ({e})")
    expected = {f"{v}.{k}": tuple(t.shape) for v in VARIANTS for k, t in made[v].shipped_state(v == "frozen").items()}
    try:
        with safe_open(str(path), framework="pt") as f:
            found = {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}
        if found != expected:
            diff = sorted(set(found) ^ set(expected)) or [k for k in found if found[k] != expected[k]]
            _fail(name, path, f"does not match its head and base ({', '.join(diff[:3])})")
        tensors = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as e:
        _fail(name, path, f"is truncated or corrupt ({e})")
    for v in VARIANTS:
        named = dict(made[v].named_parameters())
        with torch.no_grad():
            for key, t in tensors.items():
                if key.startswith(f"{v}."):
                    named[key[len(v) + 1:]].copy_(t.float())
        made[v].requires_grad_(False)
        made[v].eval()
    return FineTuned(base, made["full"], made["frozen"], meta)
