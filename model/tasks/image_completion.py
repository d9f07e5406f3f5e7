"""ImageGPT at work: complete an image from its first pixels (greedy or sampled, pixel by pixel in raster order),
with the next-pixel distribution at every step; the bits per pixel a model spends on whole images; and one
image's attention, each position over the start token and the pixels before it."""
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from model.engine.capture import capturing


@dataclass(frozen=True)
class Completion:
    """pixels: (B, N) int levels, the first `given` as given, the rest generated; probs: (B, N − given, levels),
    the distribution each generated pixel was drawn from (greedy: its argmax was taken)."""
    pixels: np.ndarray
    probs: np.ndarray
    given: int


@torch.inference_mode()
def complete(model, pixels: np.ndarray, given: int, *, greedy: bool = True, temperature: float = 1.0,
             seed: int = 0) -> Completion:
    """pixels: (B, N) or (N,) levels (only the first `given` are read). Pixel t is taken from position t's
    distribution, its argmax (greedy) or a draw at `temperature`; the decoder reads the given pixels once, then
    one new pixel a step with its keys and values cached (the same numbers as rereading the whole prefix)."""
    model.eval()
    x = torch.as_tensor(np.atleast_2d(pixels), dtype=torch.int64).clone()            # (B, N)
    B, N = x.shape
    if not 0 < given < N:
        raise ValueError(f"given={given} must leave pixels both given and to generate (N = {N})")
    gen = torch.Generator().manual_seed(seed)
    decoder, levels = model.decoder, model.config.levels
    caches = [{} for _ in decoder.encoder.layers]
    step_in, offset, probs = model.inputs(x[:, :given + 1]), 0, []                   # start, pixels 0 … given−1
    for t in range(given, N):
        h = decoder.encode(step_in, kv_caches=caches, offset=offset).x[:, -1]        # (B, C) at position t
        p = F.softmax(decoder.lm_head(h)[:, :levels].float() / (1.0 if greedy else temperature), dim=-1)
        probs.append(p)
        x[:, t] = p.argmax(-1) if greedy else torch.multinomial(p, 1, generator=gen)[:, 0]
        step_in, offset = x[:, t:t + 1], t + 1
    return Completion(pixels=x.numpy(), probs=torch.stack(probs, dim=1).numpy(), given=given)


@torch.inference_mode()
def bits_per_pixel(model, pixels: np.ndarray, batch: int = 256) -> float:
    """Mean −log2 p(pixel | pixels before it) over every pixel of (B, N) images."""
    model.eval()
    total, count = 0.0, 0
    for i in range(0, len(pixels), batch):
        x = torch.as_tensor(pixels[i:i + batch], dtype=torch.int64)
        total += float(F.cross_entropy(model(x).flatten(0, 1), x.flatten(), reduction="sum"))
        count += x.numel()
    return float(total / count / np.log(2))


@torch.inference_mode()
def pixel_attention(model, pixels: np.ndarray) -> np.ndarray:
    """(N,) levels -> (L, H, N, N) float32: position t (the one predicting pixel t) over positions 0 … t, position 0
    the start token and position s > 0 holding pixel s − 1."""
    model.eval()
    with capturing():
        out = model.encode(torch.as_tensor(pixels, dtype=torch.int64)[None])
    return np.stack([i.weights[0].float().numpy() for i in out.intermediates])


def greedy_and_sampled(model, pixels, given: int, samples: int, temperature: float, seed: int):
    """(greedy Completion, sampled Completion of `samples` rows) from the first `given` of `pixels` (levels in
    raster order, (N,))."""
    x = np.asarray(pixels, dtype=np.int64)[None]                                  # (1, N)
    return (complete(model, x, given),
            complete(model, np.repeat(x, samples, axis=0), given, greedy=False, temperature=temperature, seed=seed))
