"""Vision Transformer (Dosovitskiy et al. 2021): patches flattened and linearly embedded, a learned
<cls> token, learned 1D positions, the encoder Stack of model/engine/transformer.py, a linear classifier on
<cls>."""
from dataclasses import asdict, dataclass, fields

import torch
from torch import nn

from model.data.patches import grid_size, patchify
from model.engine.config import ModelConfig, check_sizes
from model.engine.transformer import Stack

MAX_PATCHES = 1024                     # a 32 × 32 grid; the shipped models have 16 and 36


@dataclass(frozen=True)
class ViTConfig:
    image_size: int = 8
    channels: int = 1
    patch_size: int = 2
    n_classes: int = 10
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 4
    d_ff: int = 128
    norm: str = "pre"
    dropout: float = 0.0

    def __post_init__(self):
        check_sizes(asdict(self))
        gh, gw = grid_size(self.image_size, self.patch_size)   # raises on a bad split
        if gh * gw > MAX_PATCHES:                               # attention is (N+1)² per head and layer
            raise ValueError(f"{gh}×{gw} = {gh * gw:,} patches; at most {MAX_PATCHES:,} (a larger patch_size)")

    @property
    def grid(self) -> tuple[int, int]:
        return grid_size(self.image_size, self.patch_size)

    @property
    def n_patches(self) -> int:
        gh, gw = self.grid
        return gh * gw

    def stack_config(self) -> ModelConfig:
        return ModelConfig(vocab_size=1, d_model=self.d_model, n_heads=self.n_heads, n_layers=self.n_layers,
                           d_ff=self.d_ff, max_len=self.n_patches + 1, pos_encoding="none", norm=self.norm,
                           activation="gelu", dropout=self.dropout)

    @classmethod
    def from_dict(cls, d: dict) -> "ViTConfig":
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown)}")
        return cls(**d)


class ViT(nn.Module):
    """images (B, C, H, W), normalised -> class logits (B, n_classes). Tokens: <cls>, p0 .. p{N-1}."""
    model_kind = "vit"

    def __init__(self, config: ViTConfig):
        super().__init__()
        self.config = c = config
        self.patch_embed = nn.Linear(c.channels * c.patch_size ** 2, c.d_model)
        self.cls = nn.Parameter(torch.zeros(1, 1, c.d_model))
        # the draws of torch.randn(...) * 0.02, without arithmetic on the meta device (model.checkpoints)
        self.pos = nn.Parameter(nn.init.normal_(torch.empty(1, c.n_patches + 1, c.d_model), std=0.02))
        self.encoder = Stack(c.stack_config(), c.n_layers)
        self.head = nn.Linear(c.d_model, c.n_classes)

    @classmethod
    def from_config(cls, config: dict) -> "ViT":
        return cls(ViTConfig.from_dict(config))

    def to_dict(self) -> dict:
        return asdict(self.config)

    def layer_masks(self, device=None) -> list[torch.Tensor] | None:
        """Per-layer bool (N+1, N+1) "may attend" masks; None = every token sees every token."""
        return None

    def encode(self, images):
        """images: (B, C, H, W) -> StackOutput with x (B, N+1, C_model), <cls> first."""
        x = self.patch_embed(patchify(images, self.config.patch_size))     # (B, N, C)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)      # (B, N+1, C)
        return self.encoder(x + self.pos, mask=self.layer_masks(images.device))

    def classify(self, x):
        """(B, N+1, C_model) -> logits (B, n_classes): the classifier on <cls>."""
        return self.head(x[:, 0])

    def forward(self, images):
        return self.classify(self.encode(images).x)
