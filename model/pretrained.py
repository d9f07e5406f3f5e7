"""Pretrained weights installed as a package, mapped onto the engine's own modules. A model's meta["weights"]
names the package, the file, its sha256 and the naming scheme of its tensors:

    {"package": "all_minilm_l6_v2", "archive": "model.zip", "member": "model.safetensors",
     "sha256": "53aa…", "names": "bert"}

"bert": Hugging Face's BertModel names (embeddings.*, encoder.layer.i.*), read onto a post-LN encoder with
token types and an embedding LayerNorm; the pooler, which sentence-transformers leaves unused, is dropped."""
import re

import torch
from safetensors.torch import load as load_bytes

from model.data import packaged

_BERT_LAYER = {
    "attention.self.query": "self_attn.w_q", "attention.self.key": "self_attn.w_k",
    "attention.self.value": "self_attn.w_v", "attention.output.dense": "self_attn.w_o",
    "attention.output.LayerNorm": "norm1", "intermediate.dense": "ffn.lin1", "output.dense": "ffn.lin2",
    "output.LayerNorm": "norm2",
}
_BERT_EMBEDDINGS = {
    "embeddings.word_embeddings": "embed.tok", "embeddings.position_embeddings": "embed.pos.table",
    "embeddings.token_type_embeddings": "embed.types", "embeddings.LayerNorm": "embed.norm",
}
_LAYER_NAME = re.compile(r"encoder\.layer\.(\d+)\.(.+)\.(weight|bias)")
_DROPPED = ("pooler.", "embeddings.position_ids")


def bert_name(name: str) -> str | None:
    """The engine's name for a BertModel tensor name; None for tensors the engine does not use."""
    if name.startswith(_DROPPED):
        return None
    module, _, param = name.rpartition(".")
    if module in _BERT_EMBEDDINGS:
        return f"{_BERT_EMBEDDINGS[module]}.{param}"
    m = _LAYER_NAME.fullmatch(name)
    if m and m.group(2) in _BERT_LAYER:
        return f"encoder.layers.{m.group(1)}.{_BERT_LAYER[m.group(2)]}.{m.group(3)}"
    raise ValueError(f"tensor {name!r} has no place in the engine's BERT encoder")


NAMES = {"bert": bert_name}


def is_packaged(meta: dict) -> bool:
    return isinstance(meta.get("weights"), dict) and "package" in meta["weights"]


def state_dict(meta: dict) -> dict[str, torch.Tensor]:
    """The engine's state dict from the installed package, after its sha256 is checked. Raises
    packaged.PackageMissing, or ValueError (a wrong hash, a tensor with no place)."""
    w = meta["weights"]
    if w.get("names") not in NAMES:
        raise ValueError(f"unknown weight names {w.get('names')!r}; known: {sorted(NAMES)}")
    raw = load_bytes(packaged.read_verified(w["package"], w.get("archive"), w["member"], w["sha256"]))
    rename = NAMES[w["names"]]
    return {new: t for name, t in raw.items() if (new := rename(name)) is not None}
