"""Run a text model with attention captured and return the plain AttentionRun."""
import numpy as np
import torch

from .attention import AttentionCapture
from .result import AttentionRun
from .tokenizer import WordTokenizer


def _stack(caps: list[AttentionCapture], attr: str) -> np.ndarray:
    """Per-layer (1, H, ...) tensors -> (L, H, ...) float32 numpy."""
    return torch.cat([getattr(c, attr) for c in caps]).float().cpu().numpy()


def capture_stack(stack_out, keep_qkv: bool = False) -> dict:
    """StackOutput of a batch of 1 -> dict of numpy arrays for AttentionRun."""
    out = {"weights": _stack(stack_out.self_caps, "weights"),
           "hidden": torch.cat(stack_out.hidden).float().cpu().numpy()}        # (L+1, N, C)
    if keep_qkv:
        for name in ("q", "k", "v", "scores"):
            out[name] = _stack(stack_out.self_caps, name)
    return out


@torch.inference_mode()
def run_text(model, tokenizer: WordTokenizer, text: str, *, add_cls_sep: bool = True, mask=None,
             keep_qkv: bool = False, positions: bool = True, max_tokens: int | None = None) -> AttentionRun:
    """Tokenize, run the encoder (or decoder) stack with capture, return numpy results.

    mask: optional bool (N, N) or per-layer list, True = may attend. Text longer than the
    model's max_len (or max_tokens) is truncated and a notice says so.
    """
    enc = tokenizer.encode(text, add_cls_sep=add_cls_sep)
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
    out = model.encode(ids, mask=mask, capture=True, keep_qkv=keep_qkv, positions=positions)
    arrays = capture_stack(out, keep_qkv)
    logits = model.lm_head(out.x)[0].float().cpu().numpy()
    return AttentionRun(tokens=enc.tokens, ids=np.array(enc.ids), unknown=enc.unknown,
                        logits=logits, notices=notices, **arrays)
