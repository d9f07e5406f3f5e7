"""Blocked sliding-window attention that never materialises N × N (Longformer's pattern, Beltagy et al.
2020): query blocks against a strided view of their key windows, processed in cache-sized chunks,
edge blocks masked. The windows are views of the inputs themselves (a dilated window's interleaved
subsequences too), so only the chunks at either end are copied. Forward and backward are plain autograd,
so models train with it; without autograd, scores and outputs are written into preallocated buffers.

Semantics (exactly those of `model.engine.masks`): query i attends key j iff j = i + dilation·t, |t| <= width,
0 <= j < N; with n_global = g > 0, the first g of the N positions are global (every query also attends them,
and they attend every key). Which of the textbook's two kinds (12.9) that is depends on what the caller puts
there: tokens added in front of the text, standing for no word, are extra global tokens
(`masks.extra_global_tokens(N - g, g, width)`: sparse_encoder's one global token is the [CLS] its text rule puts
first); words of the text are chosen global tokens (`masks.global_tokens(N, range(g), width)`). Both are the
same N × N matrix here, since N already counts the added tokens.
Memory: O(N·(block + 2·width)) for the scores (+ O(N·g) for global columns). FLOPs of the local part:
4·N·(block + 2·width)·D, of which 4·N·(2·width + 1)·D are useful.
"""
import functools
import math

import numpy as np
import torch
import torch.nn.functional as F

from model.engine import masks
from model.engine.cache_sizes import SPARSE_MASK_SHAPES

CHUNK_ELEMS = 1 << 19           # score elements per chunk (2 MiB float32): scores + probs stay in cache


@functools.lru_cache(maxsize=SPARSE_MASK_SHAPES)
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


def _windows(t, c0: int, c1: int, blk: int, w: int):
    """Key windows of blocks c0..c1-1 of a flat (M, D) array, rows possibly strided: (c, D, S = blk + 2w),
    block j seeing rows j·blk - w .. j·blk + blk + w - 1. A strided view (unfold) of t itself; only a chunk
    that runs past either end of t is copied, with zero rows there (those keys are masked)."""
    lo, hi, M = c0 * blk - w, c1 * blk + w, t.shape[0]
    part = t[lo:hi] if lo >= 0 and hi <= M else F.pad(t[max(lo, 0):min(hi, M)], (0, 0, max(0, -lo), max(0, hi - M)))
    return part.unfold(0, blk + 2 * w, blk)


def _core(q, k, v, out, N: int, w: int, blk: int, g: int, scale: float, chunk_elems: int):
    """Window attention over flat (M, D) arrays that hold M / Np sequences end to end, each N rows padded to
    Np = whole blocks (rows may be strided: a dilated split is a view). Writes `out` (M, D) in place, or
    returns the result when `out` is None (the autograd path). Keys that spill into a neighbouring sequence
    are exactly the masked edge keys, so nothing is copied but the chunk at either end."""
    M, d = q.shape
    nb = -(-N // blk)
    n_blocks, S = M // blk, blk + 2 * w
    band, edges = _local_masks(N, nb, blk, w, g, str(q.device))
    edge_of = dict(edges)
    cb = max(1, chunk_elems // (blk * (S + g))) if chunk_elems else n_blocks
    cb = -(-n_blocks // -(-n_blocks // cb))                           # equal chunks: no small last one
    if g:
        kg, vg = k.view(-1, nb * blk, d)[:, :g], v.view(-1, nb * blk, d)[:, :g]   # (sequences, g, D)
    scores = None if out is None else q.new_empty(min(cb, n_blocks), blk, S + g)
    outs = []
    for c0 in range(0, n_blocks, cb):                                 # chunks small enough to stay in cache
        c1 = min(c0 + cb, n_blocks)
        qc = q[c0 * blk:c1 * blk].view(c1 - c0, blk, d)
        kw, vw = _windows(k, c0, c1, blk, w), _windows(v, c0, c1, blk, w).transpose(-1, -2)
        if g:
            seq = torch.arange(c0, c1, device=q.device) // nb         # which sequence each block belongs to
            kgc, vgc = kg[seq].transpose(-1, -2), vg[seq]             # (c, D, g), (c, g, D)
        if out is None:
            s = torch.matmul(qc * scale, kw)                          # (c, blk, S) window scores
            if g:
                s = torch.cat([s, torch.matmul(qc * scale, kgc)], dim=-1)  # + (c, blk, g) global-key scores
        else:                                                         # in place; the scale rides on the GEMM
            s = scores[:c1 - c0]
            torch.baddbmm(s[..., :S], qc, kw, beta=0, alpha=scale, out=s[..., :S])
            if g:
                torch.baddbmm(s[..., S:], qc, kgc, beta=0, alpha=scale, out=s[..., S:])
        s[..., :S].masked_fill_(band, float("-inf"))
        for j in range(c0, c1):                                        # boundary blocks only (few)
            m = edge_of.get(j % nb)
            if m is not None:
                s[j - c0, :, :S].masked_fill_(m, float("-inf"))
        p = torch.softmax(s, dim=-1)                                  # one softmax over window + global keys
        if out is None:
            o = torch.matmul(p[..., :S], vw)
            outs.append(o + torch.matmul(p[..., S:], vgc) if g else o)
        else:
            oc = out[c0 * blk:c1 * blk].view(c1 - c0, blk, d)
            torch.matmul(p[..., :S], vw, out=oc)
            if g:
                oc.baddbmm_(p[..., S:], vgc)
    if out is None:
        out = (outs[0] if len(outs) == 1 else torch.cat(outs)).view(M, d)
    if not g:
        return out
    qs, ks, vs = (t.view(-1, nb * blk, d) for t in (q, k, v))        # global rows: dense
    og = torch.softmax(torch.matmul(qs[:, :g] * scale, ks[:, :N].transpose(-1, -2)), dim=-1) @ vs[:, :N]
    out = out.view(-1, nb * blk, d)
    if torch.is_grad_enabled() and og.requires_grad:
        return torch.cat([og, out[:, g:]], dim=1).view(M, d)
    out[:, :g] = og
    return out.view(M, d)


def sliding_window_attention(q, k, v, width: int = 128, block: int = 64, dilation: int = 1, n_global: int = 0,
                             scale: float | None = None, chunk_elems: int = CHUNK_ELEMS):
    """Windowed attention without an N × N matrix. q, k, v: (..., N, D) -> (..., N, D).

    width: keys on each side (in steps of `dilation`); n_global: positions 0..g-1 of the N see and are seen by all
    (not with dilation > 1; [CLS] there makes it an extra global token); chunk_elems: score elements per chunk
    (0 = all blocks at once).
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
    # A dilated window is an ordinary window on each of the `dilation` interleaved subsequences: view
    # (B, N, d) as (B, n, D, d); residue r is then one flat array of B sequences, rows strided by D·d.
    D, n = dilation, N // dilation
    q, k, v = (t.reshape(-1, n, D, d) for t in (q, k, v))
    B, Np = q.shape[0], -(-n // block) * block
    if Np > n:                                                        # whole blocks per sequence: pad a copy
        q, k, v = (F.pad(t, (0, 0, 0, 0, 0, Np - n)) for t in (q, k, v))
    grad = torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v))
    out = None if grad else q.new_empty(D, B * Np, d)                 # residue by residue, written in place
    outs = [_core(q[:, :, r].reshape(-1, d), k[:, :, r].reshape(-1, d), v[:, :, r].reshape(-1, d),
                  None if grad else out[r], n, width, block, n_global, scale, chunk_elems) for r in range(D)]
    if grad:
        out = torch.stack(outs)
    # back to position order i·D + r: a view when D = 1, one copy otherwise
    return out.view(D, B, Np, d).permute(1, 2, 0, 3)[:, :n].reshape(*lead, N, d)


class SlidingWindow:
    """A configured kernel usable as MultiHeadAttention's `kernel(q, k, v) -> out`, plus the dense mask
    with the same meaning (for the explicit path that returns weights)."""

    def __init__(self, width: int, n_global: int = 0, dilation: int = 1, block: int = 64):
        self.width, self.n_global, self.dilation, self.block = width, n_global, dilation, block

    def __call__(self, q, k, v):
        return sliding_window_attention(q, k, v, self.width, self.block, self.dilation, self.n_global)

    def mask(self, n: int) -> np.ndarray:
        """(n, n) bool, True = may attend: what this kernel computes, as a matrix, for n tokens that include the
        global ones at the front (the extra kind: n - g text tokens after g added tokens such as [CLS])."""
        if self.n_global:
            g = min(self.n_global, n)
            return masks.extra_global_tokens(n - g, g, self.width)
        return masks.dilated_window(n, self.width, self.dilation)

    def __repr__(self):
        return f"SlidingWindow(width={self.width}, n_global={self.n_global}, dilation={self.dilation})"
