"""Where does each head point a pronoun? Resolution by one attention head (argmax of its row at the
pronoun) and the accuracy of every head on labelled samples from the course world (model/data/course_world.py).
"""
import numpy as np
import torch

from model.data.course_world import PRONOUNS, Sample
from model.data.word_tokenizer import PAD, WordTokenizer, split_words
from model.engine.capture import capturing


@torch.inference_mode()
def batch_weights(model, tokenizer: WordTokenizer, texts: list[str], batch_size: int = 128) -> list[np.ndarray]:
    """Attention of every text, with [CLS] and [SEP]: a list of (L, H, N_i, N_i) float32 arrays."""
    out = []
    device = next(model.parameters()).device
    for start in range(0, len(texts), batch_size):
        encs = [tokenizer.encode(t, add_cls_sep=True).ids for t in texts[start:start + batch_size]]
        T = max(map(len, encs))
        ids = torch.full((len(encs), T), PAD, dtype=torch.long, device=device)
        for i, e in enumerate(encs):
            ids[i, :len(e)] = torch.tensor(e)
        with capturing():
            inters = model.encode(ids, mask=(ids != PAD)[:, None, None, :]).intermediates
        w = torch.stack([i.weights for i in inters], dim=1).float().cpu().numpy()   # (B, L, H, T, T)
        out += [w[i, :, :, :len(e), :len(e)] for i, e in enumerate(encs)]
    return out


def ref_hits(model, tokenizer: WordTokenizer, samples: list[Sample]) -> np.ndarray:
    """(L, H, R) bool: whether each head's argmax at each pronoun lands on the antecedent. R counts
    every Ref of every sample in order."""
    weights = batch_weights(model, tokenizer, [s.text for s in samples])
    hits = []
    for w, s in zip(weights, samples):
        for r in s.refs:
            row = w[:, :, r.pronoun_index + 1, :]                 # (L, H, N); +1 for [CLS]
            hits.append(row.argmax(-1) == r.antecedent_index + 1)
    return np.stack(hits, axis=-1)


def head_accuracy(model, tokenizer: WordTokenizer, samples: list[Sample]) -> np.ndarray:
    """(L, H) float: each head's argmax accuracy over all pronoun references of the samples."""
    return ref_hits(model, tokenizer, samples).mean(-1)


def pair_accuracy(hits: np.ndarray, samples: list[Sample]) -> float:
    """Fraction of minimal pairs (samples sharing pair_id) whose every reference is right.
    hits: (R,) bool for one head, ordered as ref_hits."""
    ok: dict[str, bool] = {}
    i = 0
    for s in samples:
        n = len(s.refs)
        ok[s.pair_id] = ok.get(s.pair_id, True) and bool(hits[i:i + n].all())
        i += n
    return float(np.mean(list(ok.values())))


def baselines(samples: list[Sample]) -> dict[str, float]:
    """Accuracy of pointing each schema pronoun at the first / the nearest of its two candidate nouns."""
    first, nearest = [], []
    for s in samples:
        r = s.refs[0]
        words = split_words(s.text)
        cands = [words.index(n, 0, r.pronoun_index) for n in s.pair]
        first.append(min(cands) == r.antecedent_index)
        nearest.append(max(cands) == r.antecedent_index)
    return {"baseline_first_noun": float(np.mean(first)), "baseline_nearest_noun": float(np.mean(nearest))}


def resolve(model, tokenizer: WordTokenizer, text: str, head: tuple[int, int], top_k: int = 5,
            weights: np.ndarray | None = None) -> dict:
    """{"tokens": [...], "pronouns": [{"index", "token", "head", "antecedent", "antecedent_index",
    "top": [[token, weight], ...]}]} for every pronoun; indices count tokens with [CLS] and [SEP].
    weights: the (L, H, N, N) attention of this text when already computed."""
    enc = tokenizer.encode(text, add_cls_sep=True)
    if weights is None:
        weights = batch_weights(model, tokenizer, [text])[0]
    layer, h = head
    pronouns = []
    for i, t in enumerate(enc.tokens):
        if t not in PRONOUNS:
            continue
        row = weights[layer, h, i]
        order = np.argsort(-row, kind="stable")[:top_k]
        j = int(order[0])
        pronouns.append({"index": i, "token": t, "head": [layer, h], "antecedent": enc.tokens[j],
                         "antecedent_index": j, "top": [[enc.tokens[k], round(float(row[k]), 4)] for k in order]})
    return {"tokens": enc.tokens, "pronouns": pronouns}
