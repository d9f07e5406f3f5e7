"""Run a text model with attention captured and return the plain AttentionRun."""
import numpy as np
import torch

from model.data.word_tokenizer import WordTokenizer
from model.engine.attention import AttentionCapture
from model.tasks.results import AttentionRun


def _stack(caps: list[AttentionCapture], attr: str) -> np.ndarray:
    """Per-layer (1, H, ...) tensors -> (L, H, ...) float32 numpy."""
    return torch.cat([getattr(c, attr) for c in caps]).float().cpu().numpy()


def capture_buffer(model, n: int) -> torch.Tensor:
    """One preallocated (L, 1, H, N, N) float32 buffer for the weights of a batch-of-1 capture:
    encode(..., weights_out=buf) writes every layer into it, so no per-layer copies are kept."""
    layers = model.encoder.layers
    n_heads = layers[0].self_attn.n_heads
    return torch.empty(len(layers), 1, n_heads, n, n, device=next(model.parameters()).device)


def capture_stack(stack_out, keep_qkv: bool = False, weights: torch.Tensor | None = None) -> dict:
    """StackOutput of a batch of 1 -> dict of numpy arrays for AttentionRun. weights: the buffer
    given to encode(weights_out=...), used as it is (no copy on CPU)."""
    w = weights[:, 0].float().cpu().numpy() if weights is not None else _stack(stack_out.self_caps, "weights")
    out = {"weights": w,
           "hidden": torch.cat(stack_out.hidden).float().cpu().numpy()}        # (L+1, N, C)
    if keep_qkv:
        for name in ("q", "k", "v", "scores"):
            out[name] = _stack(stack_out.self_caps, name)
    return out


@torch.inference_mode()
def run_text(model, tokenizer: WordTokenizer, text: str, *, add_cls_sep: bool = True, mask=None,
             keep_qkv: bool = False, positions: bool = True, max_tokens: int | None = None,
             bos: bool = False) -> AttentionRun:
    """Tokenize, run the encoder (or decoder) stack with capture, return numpy results.

    mask: optional bool (N, N) or per-layer list, True = may attend. Text longer than the
    model's max_len (or max_tokens) is truncated and a notice says so.
    """
    enc = tokenizer.encode(text, add_cls_sep=add_cls_sep, bos=bos)       # bos: decoders trained on [BOS] …
    limit = min(model.config.max_len, max_tokens or model.config.max_len)
    notices = []
    if len(enc.ids) > limit:
        notices.append(f"The text has {len(enc.ids)} tokens; this model reads at most {limit}, "
                       f"so only the first {limit} are shown.")
        enc.ids, enc.tokens, enc.unknown = enc.ids[:limit], enc.tokens[:limit], enc.unknown[:limit]
    device = next(model.parameters()).device
    ids = torch.tensor([enc.ids], device=device)
    if isinstance(mask, np.ndarray):
        mask = torch.from_numpy(mask).to(device)
    buf = None if keep_qkv else capture_buffer(model, ids.shape[1])
    out = model.encode(ids, mask=mask, capture=True, keep_qkv=keep_qkv, positions=positions,
                       **({"weights_out": buf} if buf is not None else {}))
    arrays = capture_stack(out, keep_qkv, buf)
    logits = model.lm_head(out.x)[0].float().cpu().numpy()
    return AttentionRun(tokens=enc.tokens, ids=np.array(enc.ids), unknown=enc.unknown,
                        logits=logits, notices=notices, **arrays)
