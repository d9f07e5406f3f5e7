"""ImageGPT (Chen et al. 2020) on small grey images: pixels quantised to a few levels, read in raster order
(row by row, left to right), a causal decoder (the engine's GPT-style Transformer, learned positions) that
predicts each pixel from a start token and the pixels before it: those to its left and every row above.
Input [start, x_0, …, x_(N−2)] -> logits for x_0 … x_(N−1)."""
from dataclasses import asdict, dataclass, fields

import numpy as np
import torch
from torch import nn

from model.engine.config import ModelConfig, check_sizes
from model.engine.transformer import Transformer


@dataclass(frozen=True)
class ImageGPTConfig:
    image_size: int = 8
    levels: int = 8                    # grey levels; the start token is id `levels`
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 4
    d_ff: int = 256
    dropout: float = 0.1

    def __post_init__(self):
        check_sizes(asdict(self))
        if not 2 <= self.levels <= 256:
            raise ValueError(f"levels={self.levels} must be from 2 to 256")
        if self.n_pixels > 4096:
            raise ValueError(f"{self.image_size}×{self.image_size} pixels is more than 4,096 in one sequence")

    @property
    def n_pixels(self) -> int:
        return self.image_size ** 2

    def decoder_config(self) -> ModelConfig:
        return ModelConfig(vocab_size=self.levels + 1, d_model=self.d_model, n_heads=self.n_heads,
                           n_layers=self.n_layers, d_ff=self.d_ff, max_len=self.n_pixels, pos_encoding="learned",
                           norm="pre", kind="decoder", activation="gelu", dropout=self.dropout)

    @classmethod
    def from_dict(cls, d: dict) -> "ImageGPTConfig":
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown)}")
        return cls(**d)


def quantise(images: np.ndarray, levels: int) -> np.ndarray:
    """(B, S, S) or (S, S) in [0, 1] -> int64 levels of the same shape: floor(x · levels), 1.0 in the top level."""
    return np.minimum(levels - 1, np.floor(np.asarray(images, dtype=np.float64) * levels)).astype(np.int64)


def dequantise(q: np.ndarray, levels: int) -> np.ndarray:
    """Levels -> grey values in [0, 1] (0 black, levels − 1 white), float32."""
    return (np.asarray(q, dtype=np.float32) / (levels - 1)).astype(np.float32)


class ImageGPT(nn.Module):
    """pixels (B, T) int levels in raster order (T ≤ N) -> logits (B, T, levels): position t predicts pixel t from
    the start token and pixels 0 … t−1."""
    model_kind = "imagegpt"

    def __init__(self, config: ImageGPTConfig):
        super().__init__()
        self.config = config
        self.decoder = Transformer(config.decoder_config())

    @classmethod
    def from_config(cls, config: dict) -> "ImageGPT":
        return cls(ImageGPTConfig.from_dict(config))

    def to_dict(self) -> dict:
        return asdict(self.config)

    def inputs(self, pixels: torch.Tensor) -> torch.Tensor:
        """(B, T) pixels -> (B, T) decoder inputs: the start token, then pixels 0 … T−2."""
        start = torch.full_like(pixels[:, :1], self.config.levels)
        return torch.cat([start, pixels[:, :-1]], dim=1)

    def encode(self, pixels: torch.Tensor):
        """The decoder's StackOutput on inputs(pixels) (weights inside `capturing()`)."""
        return self.decoder.encode(self.inputs(pixels))

    def forward(self, pixels: torch.Tensor) -> torch.Tensor:
        return self.decoder.lm_head(self.encode(pixels).x)[..., :self.config.levels]
