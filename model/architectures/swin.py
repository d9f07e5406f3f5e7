"""Swin Transformer (Liu et al. 2021) as published: patch embedding, window attention with a learned
relative-position bias, windows shifted by window // 2 every other block (cyclic shift + mask), patch merging
2×2 -> 2C between stages until one window covers the grid, no <cls>: LayerNorm, the average of the last stage's
tokens, a linear classifier. `Hierarchy` is the skeleton DaViT (model/architectures/davit.py) shares."""
from dataclasses import asdict, dataclass, fields

import torch
import torch.nn.functional as F
from torch import nn

from model.architectures.vit import MAX_PATCHES
from model.architectures.windows import (
    PatchMerging,
    full_matrix,
    partition,
    relative_index,
    shift_mask,
    stage_window,
    unpartition,
    window_tokens,
)
from model.data.patches import grid_size, patchify
from model.engine.attention import attention
from model.engine.capture import Intermediates, active
from model.engine.config import check_sizes
from model.engine.layers import FeedForward

MAX_STAGES, MAX_DEPTH, MAX_HEADS = 4, 12, 64


@dataclass(frozen=True)
class SwinConfig:
    image_size: int = 8
    channels: int = 1
    patch_size: int = 1
    n_classes: int = 10
    d_model: int = 32                  # C of stage 1; stage s (0-based) has C·2^s
    depths: tuple = (2, 2, 2)          # blocks per stage
    heads: tuple = (2, 4, 8)           # attention heads per stage
    window: int = 2                    # window side in tokens (a smaller grid is one window)
    mlp_ratio: int = 2                 # d_ff = mlp_ratio · C of the stage

    def __post_init__(self):
        check_sizes(asdict(self))
        object.__setattr__(self, "depths", tuple(self.depths))
        object.__setattr__(self, "heads", tuple(self.heads))
        S = len(self.depths)
        if not 1 <= S <= MAX_STAGES or len(self.heads) != S:
            raise ValueError(f"depths and heads need one entry per stage, 1 to {MAX_STAGES} stages "
                             f"(got {list(self.depths)} and {list(self.heads)})")
        for what, values, top in (("depths", self.depths, MAX_DEPTH), ("heads", self.heads, MAX_HEADS)):
            if any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= top for v in values):
                raise ValueError(f"{what} {list(values)}: each must be an integer from 1 to {top}")
        if not 1 <= self.mlp_ratio <= 8:
            raise ValueError(f"mlp_ratio={self.mlp_ratio} must be from 1 to 8")
        if self.window < 1:
            raise ValueError("window must be at least 1 token")
        g, _ = grid_size(self.image_size, self.patch_size)       # raises on a bad split
        if g * g > MAX_PATCHES:                                  # a page draws (N, N) masks of the first stage
            raise ValueError(f"{g}×{g} = {g * g:,} patches; at most {MAX_PATCHES:,} (a larger patch_size)")
        if g % (1 << (S - 1)):
            raise ValueError(f"a {g}×{g} patch grid cannot be merged 2×2 {S - 1} times")
        for s, (gs, dim, h) in enumerate(zip(self.grids, self.dims, self.heads)):
            w, _ = stage_window(gs, self.window)
            if gs % w:
                raise ValueError(f"window={self.window} does not tile stage {s}'s {gs}×{gs} grid")
            if dim % h:
                raise ValueError(f"stage {s}: width {dim} must split evenly across {h} heads")

    @property
    def grids(self) -> tuple[int, ...]:
        """Tokens per side at each stage: the patch grid, halved by every merging."""
        g = self.image_size // self.patch_size
        return tuple(g >> s for s in range(len(self.depths)))

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(self.d_model << s for s in range(len(self.depths)))

    @property
    def n_layers(self) -> int:
        return sum(self.depths)

    @property
    def grid(self) -> tuple[int, int]:
        return (self.grids[0], self.grids[0])

    @property
    def n_patches(self) -> int:
        return self.grids[0] ** 2

    def windows(self, stage: int) -> tuple[int, list[int]]:
        """(window side, the shift of each block) at a stage: 0 on even blocks, window // 2 on odd ones."""
        w, shift = stage_window(self.grids[stage], self.window)
        return w, [0 if i % 2 == 0 else shift for i in range(self.depths[stage])]

    @classmethod
    def from_dict(cls, d: dict) -> "SwinConfig":
        unknown = set(d) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown config keys {sorted(unknown)}")
        return cls(**d)


class WindowAttention(nn.Module):
    """Multi-head self-attention inside each window, with a learned bias per head and relative offset:
    softmax(QKᵀ/√d + B)V (Swin eq. 4). Masked pairs get −inf (Swin's code adds −100, the same to float
    precision), so a weight outside a token's region is exactly 0."""

    def __init__(self, dim: int, n_heads: int, window: int, relative_bias: bool = True):
        super().__init__()
        self.n_heads, self.window = n_heads, window
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.bias_table = (nn.Parameter(nn.init.trunc_normal_(torch.empty((2 * window - 1) ** 2, n_heads), std=0.02))
                           if relative_bias else None)
        self.register_buffer("rel_index", relative_index(window), persistent=False)   # (w², w²)

    def bias(self) -> torch.Tensor:
        """(H, w², w²) relative-position bias (zeros without one: DaViT)."""
        if self.bias_table is None:
            return self.rel_index.new_zeros((self.n_heads, *self.rel_index.shape), dtype=self.qkv.weight.dtype)
        return self.bias_table[self.rel_index].permute(2, 0, 1)

    def forward(self, x, mask):
        """x: (B, nW, w², C); mask: (nW, w², w²) bool, True = may attend. Returns (B, nW, w², C) and the
        weights (B, nW, H, w², w²) inside `capturing()`, else None."""
        B, nW, T, C = x.shape
        q, k, v = self.qkv(x).view(B, nW, T, 3, self.n_heads, C // self.n_heads).permute(3, 0, 1, 4, 2, 5)
        m = mask[:, None]                                                   # (nW, 1, w², w²)
        if active() is None:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias().masked_fill(~m, float("-inf")))
            weights = None
        else:
            y, weights, _ = attention(q, k, v, m, self.bias())              # (B, nW, H, w², D)
        return self.proj(y.transpose(2, 3).reshape(B, nW, T, C)), weights


class SwinBlock(nn.Module):
    """x + W-MSA(LN(x)) (or SW-MSA when shift > 0), then x + MLP(LN(x)). (B, G, G, C) -> (B, G, G, C)."""

    def __init__(self, dim: int, n_heads: int, grid: int, window: int, shift: int, mlp_ratio: int,
                 relative_bias: bool = True):
        super().__init__()
        self.grid, self.window, self.shift = grid, window, shift
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, n_heads, window, relative_bias)
        self.mlp = FeedForward(dim, mlp_ratio * dim, "gelu")
        self.register_buffer("mask", torch.from_numpy(shift_mask(grid, window, shift)), persistent=False)

    def forward(self, x):
        """Returns (x, Intermediates with weights (B, H, N, N) over the row-major grid inside `capturing()`)."""
        B, G, _, C = x.shape
        h = self.norm1(x)
        if self.shift:
            h = torch.roll(h, (-self.shift, -self.shift), dims=(1, 2))     # the cyclic shift
        win = partition(h, self.window).view(B, -1, self.window ** 2, C)   # (B, nW, w², C)
        y, weights = self.attn(win, self.mask)
        y = unpartition(y.reshape(-1, self.window ** 2, C), self.window, G)
        if self.shift:
            y = torch.roll(y, (self.shift, self.shift), dims=(1, 2))
        x = x + y
        x = x + self.mlp(self.norm2(x))
        return x, None if weights is None else Intermediates(weights=self.full_weights(weights))

    def full_weights(self, weights: torch.Tensor) -> torch.Tensor:
        """(B, nW, H, w², w²) -> (B, H, N, N): each window's weights put back at its tokens' grid places."""
        tokens = torch.from_numpy(window_tokens(self.grid, self.window, self.shift)).to(weights.device)
        B, nW, H, T, _ = weights.shape
        full = weights.new_zeros(B, H, self.grid ** 2, self.grid ** 2)
        rows, cols = tokens[:, :, None].expand(nW, T, T), tokens[:, None, :].expand(nW, T, T)
        full[:, :, rows, cols] = weights.permute(0, 2, 1, 3, 4)
        return full


class HierarchyOutput:
    """x: (B, N_last, C_last) after the final LayerNorm. Inside `capturing()`: intermediates, one per block
    (weights (B, H, N_s, N_s)); inputs, the input of every block (B, N_s, C_s); outside: empty lists."""

    def __init__(self, x, intermediates, inputs):
        self.x, self.intermediates, self.inputs = x, intermediates, inputs


class Hierarchy(nn.Module):
    """Patch embedding (a linear map of each flattened patch, then LayerNorm), stages of blocks with a patch
    merging after every stage but the last, LayerNorm, average pooling, a linear classifier.
    images (B, C, H, W), normalised -> logits (B, n_classes). Subclasses say which blocks a stage has."""

    def __init__(self, config):
        super().__init__()
        self.config = c = config
        self.patch_embed = nn.Linear(c.channels * c.patch_size ** 2, c.d_model)
        self.embed_norm = nn.LayerNorm(c.d_model)
        self.stages = nn.ModuleList(nn.ModuleList(self.make_blocks(s)) for s in range(len(c.depths)))
        self.merges = nn.ModuleList(PatchMerging(c.dims[s]) for s in range(len(c.depths) - 1))
        self.norm = nn.LayerNorm(c.dims[-1])
        self.head = nn.Linear(c.dims[-1], c.n_classes)

    def make_blocks(self, stage: int) -> list[nn.Module]:
        raise NotImplementedError

    @property
    def stage_of_layer(self) -> tuple[int, ...]:
        """The stage of every block, in order."""
        return tuple(s for s, blocks in enumerate(self.stages) for _ in blocks)

    @classmethod
    def from_config(cls, config: dict):
        return cls(cls.config_class.from_dict(config))

    def to_dict(self) -> dict:
        d = asdict(self.config)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    def encode(self, images) -> HierarchyOutput:
        c = self.config
        x = self.embed_norm(self.patch_embed(patchify(images, c.patch_size)))           # (B, N, C)
        x = x.view(x.shape[0], c.grids[0], c.grids[0], -1)                               # (B, G, G, C)
        keep = active() is not None
        inters, inputs = [], []
        for s, blocks in enumerate(self.stages):
            for block in blocks:
                if keep:
                    inputs.append(x.flatten(1, 2))
                x, inter = block(x)
                if keep:
                    inters.append(inter)
            if s < len(self.merges):
                x = self.merges[s](x)                                                    # (B, G/2, G/2, 2C)
        return HierarchyOutput(self.norm(x.flatten(1, 2)), inters, inputs)

    def layer_masks(self) -> list:
        """Per block, an (N_s, N_s) bool "may attend" array over the row-major grid of its stage; None for a block
        without token attention (DaViT's channel blocks)."""
        return [full_matrix(b.mask.cpu().numpy(), b.grid, b.window, b.shift) if hasattr(b, "mask") else None
                for blocks in self.stages for b in blocks]

    def classify(self, x):
        """(B, N_last, C_last) -> logits (B, n_classes): the average of the last stage's tokens."""
        return self.head(x.mean(1))

    def forward(self, images):
        return self.classify(self.encode(images).x)


class Swin(Hierarchy):
    config_class = SwinConfig
    model_kind = "swin"

    def make_blocks(self, stage: int) -> list[nn.Module]:
        c = self.config
        window, shifts = c.windows(stage)
        return [SwinBlock(c.dims[stage], c.heads[stage], c.grids[stage], window, s, c.mlp_ratio) for s in shifts]
