"""Blocked sliding-window attention that never materialises N × N (Longformer's pattern, Beltagy et al.
2020): query blocks against a strided view of their key windows, processed in cache-sized chunks,
edge blocks masked. Forward and backward are plain autograd, so models train with it.

Semantics (exactly those of `model.masks`): query i attends key j iff j = i + dilation·t, |t| <= width,
0 <= j < N; with n_global = g > 0, tokens 0..g-1 are global (every query also attends them, and they
attend every key) — `masks.extra_global_tokens(N, g, width)`.
Memory: O(N·(block + 2·width)) for the scores (+ O(N·g) for global columns). FLOPs of the local part:
4·N·(block + 2·width)·D, of which 4·N·(2·width + 1)·D are useful.
"""
import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from . import masks

CHUNK_ELEMS = 1 << 19           # score elements per chunk (2 MiB float32): scores + probs stay in cache


@functools.lru_cache(maxsize=64)
def _local_masks(N: int, nb: int, blk: int, w: int, n_global: int, device: str):
    """Masks of the (nb, blk, S = blk + 2w) local scores, True = blocked. `band` (blk, S) is shared by all
    blocks (|key - query| > w); `edges` lists (block, (blk, S) mask) for the few blocks whose window
    touches the padding (keys < 0 or >= N) or the global keys (scored separately). Built outside inference
    mode: the cache is shared by inference and training calls."""
    with torch.inference_mode(False):
        return _build_local_masks(N, nb, blk, w, n_global, device)


def _build_local_masks(N: int, nb: int, blk: int, w: int, n_global: int, device: str):
    S = blk + 2 * w
    r = torch.arange(blk, device=device)[:, None]
    c = torch.arange(S, device=device)[None, :]
    band = ~((c - r >= 0) & (c - r <= 2 * w))                                      # (blk, S)
    key_abs = torch.arange(nb, device=device)[:, None] * blk - w + c               # (nb, S)
    key_bad = (key_abs < max(0, n_global)) | (key_abs >= N)
    q_pad = (torch.arange(nb, device=device)[:, None] * blk + r.T) >= N            # (nb, blk)
    edges = []
    for i in torch.nonzero(key_bad.any(1)).flatten().tolist():
        # padded query rows (output dropped) keep their padded keys: no all -inf row, no NaN
        edges.append((i, band | (key_bad[i][None, :] & ~q_pad[i][:, None])))
    return band, tuple(edges)


def _core(q, k, v, w: int, blk: int, n_global: int, scale: float, chunk_elems: int):
    """q, k, v: (BH, N, D) -> (BH, N, D), dilation 1."""
    BH, N, d = q.shape
    nb = -(-N // blk)
    Np, S = nb * blk, blk + 2 * w
    qs, kq, vq = q * scale, k, v
    if Np > N:                                                        # pad each sequence to whole blocks
        qs, kq, vq = (F.pad(t, (0, 0, 0, Np - N)) for t in (qs, kq, vq))
    qb = qs.reshape(1, BH * nb, blk, d)
    # All BH sequences end to end, padded by w at both ends: every key window is a strided view (unfold)
    # with one batch dim. Keys that spill into a neighbouring sequence are exactly the masked edge keys.
    kp = F.pad(kq.reshape(1, BH * Np, d), (0, 0, w, w))                # (1, BH·Np + 2w, D)
    vp = F.pad(vq.reshape(1, BH * Np, d), (0, 0, w, w))
    kw = kp.unfold(1, S, blk)                                         # (1, BH·nb, D, S) view
    vw = vp.unfold(1, S, blk).transpose(-1, -2)                       # (1, BH·nb, S, D) view
    band, edges = _local_masks(N, nb, blk, w, n_global, str(q.device))
    g = n_global
    kg, vg = k[:, :g], v[:, :g]                                       # (BH, g, D) global keys and values
    cb = max(1, chunk_elems // (blk * (S + g))) if chunk_elems else BH * nb
    edge_of = dict(edges)
    outs = []
    for c0 in range(0, BH * nb, cb):                                  # chunks small enough to stay in cache
        c1 = min(c0 + cb, BH * nb)
        s = torch.matmul(qb[:, c0:c1], kw[:, c0:c1])                   # (1, c, blk, S) window scores
        s.masked_fill_(band, float("-inf"))
        for j in range(c0, c1):                                        # boundary blocks only (few)
            m = edge_of.get(j % nb)
            if m is not None:
                s[0, j - c0].masked_fill_(m, float("-inf"))
        if not g:
            outs.append(torch.matmul(torch.softmax(s, dim=-1), vw[:, c0:c1]))
            continue
        seq = torch.arange(c0, c1, device=q.device) // nb             # which sequence each block belongs to
        sg = torch.matmul(qb[0, c0:c1], kg[seq].transpose(-1, -2))      # (c, blk, g) global-key scores
        p = torch.softmax(torch.cat([s[0], sg], dim=-1), dim=-1)      # one softmax over window + global keys
        outs.append((torch.matmul(p[..., :S], vw[0, c0:c1]) + torch.matmul(p[..., S:], vg[seq])).unsqueeze(0))
    out = outs[0] if len(outs) == 1 else torch.cat(outs, dim=1)       # (1, BH·nb, blk, D)
    out = out.reshape(BH, Np, d)[:, :N]
    if not g:
        return out
    og = torch.softmax(torch.matmul(q[:, :g] * scale, k.transpose(-1, -2)), dim=-1) @ v   # global rows: dense
    return torch.cat([og, out[:, g:]], dim=1)


def sliding_window_attention(q, k, v, width: int = 128, block: int = 64, dilation: int = 1, n_global: int = 0,
                             scale: float | None = None, chunk_elems: int = CHUNK_ELEMS):
    """Windowed attention without an N × N matrix. q, k, v: (..., N, D) -> (..., N, D).

    width: keys on each side (in steps of `dilation`); n_global: tokens 0..g-1 see and are seen by all
    (not with dilation > 1); chunk_elems: score elements per chunk (0 = all blocks at once).
    """
    *lead, N, d = q.shape
    if width < 0 or block < 1 or dilation < 1 or n_global < 0:
        raise ValueError(f"need width >= 0, block >= 1, dilation >= 1, n_global >= 0 (got {width}, {block}, "
                         f"{dilation}, {n_global})")
    if dilation > 1 and n_global:
        raise ValueError("dilated windows with global tokens are not supported by the kernel")
    if N % dilation:
        raise ValueError(f"N={N} must be a multiple of dilation={dilation}")
    if n_global > N:
        raise ValueError(f"n_global={n_global} exceeds N={N}")
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    q, k, v = (t.reshape(-1, N, d) for t in (q, k, v))
    if dilation == 1:
        out = _core(q, k, v, width, block, n_global, scale, chunk_elems)
    else:
        # a dilated window is an ordinary window on each of the `dilation` interleaved subsequences
        BH, D = q.shape[0], dilation

        def split(t):
            return t.reshape(BH, N // D, D, d).transpose(1, 2).reshape(BH * D, N // D, d)

        out = _core(split(q), split(k), split(v), width, block, 0, scale, chunk_elems)
        out = out.reshape(BH, D, N // D, d).transpose(1, 2).reshape(BH, N, d)
    return out.reshape(*lead, N, d)


class SlidingWindow:
    """A configured kernel usable as MultiHeadAttention's `attn_fn(q, k, v) -> out`, plus the dense mask
    with the same meaning (for the explicit path that returns weights)."""

    def __init__(self, width: int, n_global: int = 0, dilation: int = 1, block: int = 64):
        self.width, self.n_global, self.dilation, self.block = width, n_global, dilation, block

    def __call__(self, q, k, v):
        return sliding_window_attention(q, k, v, self.width, self.block, self.dilation, self.n_global)

    def mask(self, n: int) -> np.ndarray:
        """(n, n) bool, True = may attend: what this kernel computes, as a matrix."""
        if self.n_global:
            return masks.extra_global_tokens(n, min(self.n_global, n), self.width)
        return masks.dilated_window(n, self.width, self.dilation)

    def __repr__(self):
        return f"SlidingWindow(width={self.width}, n_global={self.n_global}, dilation={self.dilation})"
