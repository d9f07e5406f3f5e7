"""What an image model costs: parameters, the query-key pairs each layer's attention computes (a ViT: (N+1)² per
head; Swin: only the pairs inside windows; DaViT's channel blocks: C_g² per group, channels instead of tokens),
and the measured time of one forward pass."""
import time

import numpy as np
import torch

from model.architectures.swin import Hierarchy


def parameters(model) -> int:
    return sum(p.numel() for p in model.parameters())


def attention_pairs(model) -> list[int]:
    """Per layer, the query-key pairs one head (or one channel group) scores, summed over heads (or groups)."""
    c = model.config
    if not isinstance(model, Hierarchy):                                 # a ViT: every token with every token
        return [c.n_heads * (c.n_patches + 1) ** 2] * c.n_layers
    out = []
    for s, blocks in enumerate(model.stages):
        for b in blocks:
            groups = getattr(b, "groups", None)
            if groups:                                                   # DaViT channel block: G groups of C_g²
                out.append(groups * (c.dims[s] // groups) ** 2)
            else:
                out.append(c.heads[s] * int(np.count_nonzero(b.mask.cpu().numpy())))
    return out


@torch.inference_mode()
def forward_ms(model, x: np.ndarray, repeats: int = 5) -> float:
    """Median milliseconds of one fast-path forward pass on x (B, C, S, S), after one warm-up pass."""
    t = torch.as_tensor(x, dtype=torch.float32, device=next(model.parameters()).device)
    model(t)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        model(t)
        times.append(time.perf_counter() - t0)
    return 1000 * float(np.median(times))


def pixel_attention_cost(side: int, patch: int = 1, bytes_per_score: int = 4) -> dict:
    """What one head of one layer computes when a side × side image is read as (side / patch)² tokens (plus a
    <cls> when patch > 1, as a ViT does): tokens, query-key pairs (tokens²) and the bytes of its score matrix."""
    tokens = (side // patch) ** 2 + (1 if patch > 1 else 0)
    return {"tokens": tokens, "pairs": tokens ** 2, "bytes": tokens ** 2 * bytes_per_score}


def summary(model) -> dict:
    """{"parameters", "pairs" (per layer), "ms" (median fast-path forward pass of one blank image)}."""
    c = model.config
    x = np.zeros((1, c.channels, c.image_size, c.image_size), dtype=np.float32)
    return {"parameters": parameters(model), "pairs": attention_pairs(model), "ms": forward_ms(model, x)}
