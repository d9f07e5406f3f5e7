"""DaViT, dual attention vision transformer (Ding et al. 2022): each stage alternates a spatial block (window
attention among tokens, windows not shifted) with a channel block, where the tokens are the channels and the
"sequence" is the whole image: channels are split into G groups of C_g and, within a group, each channel
attends to every channel, softmax(Qᵀ K / √C_g), a C_g × C_g map built from all N positions at once, so one
channel block sees the entire image. Each block starts with a convolutional position encoding (a depthwise
3×3 convolution added to x, DaViT's CPE); patch merging, pooling and the classifier are Swin's (Hierarchy)."""
from dataclasses import dataclass

from torch import nn

from model.architectures.swin import Hierarchy, SwinBlock, SwinConfig
from model.engine.capture import Intermediates, active
from model.engine.layers import FeedForward


@dataclass(frozen=True)
class DaViTConfig(SwinConfig):
    """SwinConfig where depths counts (spatial, channel) pairs per stage and heads is both the spatial heads and
    the channel groups of a stage; windows are never shifted."""


@dataclass(frozen=True)
class ChannelIntermediates(Intermediates):
    """weights: (B, G, C_g, C_g), row i = how channel i of the group mixes the group's channels."""
    channel: bool = True


class ConvPosEnc(nn.Module):
    """x + depthwise 3×3 convolution of x: position from the neighbourhood (DaViT's CPE). (B, G, G, C) -> same."""

    def __init__(self, dim: int):
        super().__init__()
        self.conv = nn.Conv2d(dim, dim, 3, padding=1, groups=dim)

    def forward(self, x):
        return x + self.conv(x.permute(0, 3, 1, 2)).permute(0, 2, 3, 1)


class ChannelAttention(nn.Module):
    """Channel group attention. x (B, N, C) -> q, k, v (B, G, N, C_g); weights = softmax(qᵀ k / √C_g) (B, G, C_g,
    C_g); out = (weights vᵀ)ᵀ back to (B, N, C), then a linear projection."""

    def __init__(self, dim: int, groups: int):
        super().__init__()
        self.groups = groups
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        q, k, v = self.qkv(x).view(B, N, 3, self.groups, C // self.groups).permute(2, 0, 3, 1, 4)  # (B, G, N, C_g)
        scores = (q.transpose(-2, -1) @ k) * (C // self.groups) ** -0.5                         # (B, G, C_g, C_g)
        weights = scores.softmax(-1)
        y = (weights @ v.transpose(-2, -1)).transpose(-2, -1)                                   # (B, G, N, C_g)
        return self.proj(y.transpose(1, 2).reshape(B, N, C)), weights


class ChannelBlock(nn.Module):
    """CPE, x + ChannelAttention(LN(x)), x + MLP(LN(x)). (B, G, G, C) -> (B, G, G, C)."""

    def __init__(self, dim: int, groups: int, mlp_ratio: int):
        super().__init__()
        self.groups = groups
        self.cpe = ConvPosEnc(dim)
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = ChannelAttention(dim, groups)
        self.mlp = FeedForward(dim, mlp_ratio * dim, "gelu")

    def forward(self, x):
        B, G, _, C = x.shape
        x = self.cpe(x)
        y, weights = self.attn(self.norm1(x).view(B, G * G, C))
        x = x + y.view(B, G, G, C)
        x = x + self.mlp(self.norm2(x))
        return x, ChannelIntermediates(weights=weights) if active() is not None else None


class SpatialBlock(SwinBlock):
    """CPE, then Swin's window block without shift and without a relative-position bias."""

    def __init__(self, dim: int, n_heads: int, grid: int, window: int, mlp_ratio: int):
        super().__init__(dim, n_heads, grid, window, 0, mlp_ratio, relative_bias=False)
        self.cpe = ConvPosEnc(dim)

    def forward(self, x):
        return super().forward(self.cpe(x))


class DaViT(Hierarchy):
    config_class = DaViTConfig
    model_kind = "davit"

    def make_blocks(self, stage: int) -> list[nn.Module]:
        c = self.config
        window, _ = c.windows(stage)
        dim, heads, grid = c.dims[stage], c.heads[stage], c.grids[stage]
        blocks = []
        for _ in range(c.depths[stage]):
            blocks += [SpatialBlock(dim, heads, grid, window, c.mlp_ratio), ChannelBlock(dim, heads, c.mlp_ratio)]
        return blocks
