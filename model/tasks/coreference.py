"""Where does each head point a pronoun? Resolution by one attention head and the accuracy of every head on
labelled samples from the course world (model/data/course_world.py), in whole words: a text is read with
[CLS] and [SEP] around it, and piece attention becomes word attention as in Clark et al. 2019 (summed over a
key word's pieces, averaged over a query word's pieces; model/tasks/word_attention.py). Word i of
split_words(text) is word i + 1 of the encoding ([CLS] is word 0).
"""
import numpy as np
import torch

from model.data import text_input
from model.data.course_world import PRONOUNS as ENGLISH_PRONOUNS
from model.data.course_world import Sample
from model.data.function_words import FUNCTION_WORDS
from model.data.word_tokenizer import PAD, split_words
from model.engine.capture import capturing
from model.tasks.word_attention import word_attention

CHINESE_PRONOUNS = ("他", "她", "它", "他们", "她们", "它们")      # whole words as jieba cuts them
PRONOUNS = frozenset(ENGLISH_PRONOUNS + CHINESE_PRONOUNS)


def encode(tokenizer, text: str) -> text_input.TextEncoding:
    return text_input.encode(tokenizer, text, "cls_sep")


@torch.inference_mode()
def encoded_weights(model, encodings: list[text_input.TextEncoding], batch_size: int = 128) -> list[np.ndarray]:
    """Piece attention of already encoded texts: a list of (L, H, N_i, N_i) float32 arrays."""
    out = []
    device = next(model.parameters()).device
    for start in range(0, len(encodings), batch_size):
        encs = [e.ids for e in encodings[start:start + batch_size]]
        T = max(map(len, encs))
        ids = torch.full((len(encs), T), PAD, dtype=torch.long, device=device)
        for i, e in enumerate(encs):
            ids[i, :len(e)] = torch.tensor(e)
        with capturing():
            inters = model.encode(ids, mask=(ids != PAD)[:, None, None, :]).intermediates
        w = torch.stack([i.weights for i in inters], dim=1).float().cpu().numpy()   # (B, L, H, T, T)
        out += [w[i, :, :, :len(e), :len(e)] for i, e in enumerate(encs)]
    return out


def batch_weights(model, tokenizer, texts: list[str], batch_size: int = 128) -> list[np.ndarray]:
    """Piece attention of every text, with [CLS] and [SEP]: a list of (L, H, N_i, N_i) float32 arrays."""
    return encoded_weights(model, [encode(tokenizer, t) for t in texts], batch_size)


def word_weights(model, tokenizer, texts: list[str]) -> list[np.ndarray]:
    """Word attention of every text: a list of (L, H, W_i, W_i) arrays, W_i counting [CLS] and [SEP]."""
    encs = [encode(tokenizer, t) for t in texts]
    return [word_attention(w, e.words) for w, e in zip(encoded_weights(model, encs), encs)]


def ref_hits(model, tokenizer, samples: list[Sample]) -> np.ndarray:
    """(L, H, R) bool: whether each head's argmax word at each pronoun is the antecedent. R counts every Ref of
    every sample in order."""
    hits = []
    for w, s in zip(word_weights(model, tokenizer, [s.text for s in samples]), samples):
        for r in s.refs:
            row = w[:, :, r.pronoun_index + 1, :]                 # (L, H, W); +1 for [CLS]
            hits.append(row.argmax(-1) == r.antecedent_index + 1)
    return np.stack(hits, axis=-1)


def head_accuracy(model, tokenizer, samples: list[Sample]) -> np.ndarray:
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


def baselines(samples: list[Sample], split=split_words) -> dict[str, float]:
    """Accuracy of pointing each schema pronoun at the first / the nearest of its two candidate nouns; split(text)
    -> the words the samples' indices count."""
    first, nearest = [], []
    for s in samples:
        r = s.refs[0]
        words = split(s.text)
        cands = [words.index(n, 0, r.pronoun_index) for n in s.pair]
        first.append(min(cands) == r.antecedent_index)
        nearest.append(max(cands) == r.antecedent_index)
    return {"baseline_first_noun": float(np.mean(first)), "baseline_nearest_noun": float(np.mean(nearest))}


SPECIAL_WORDS = frozenset({"[CLS]", "[SEP]", "[PAD]", "[BOS]", "[EOS]", "[MASK]"})


def content_words(word_texts) -> np.ndarray:
    """(W,) bool: the words a pronoun can stand for: not a special token, punctuation, a function word
    (model.data.function_words) or a pronoun."""
    return np.array([t not in SPECIAL_WORDS and any(c.isalnum() for c in t) and t.lower() not in FUNCTION_WORDS
                     and t.lower() not in PRONOUNS for t in word_texts])


def resolve(model, tokenizer, text: str, head: tuple[int, int], top_k: int = 5,
            weights: np.ndarray | None = None, candidates: str = "all") -> dict:
    """{"tokens": [words], "pieces": [[pieces of each word]], "pronouns": [{"index", "token", "head",
    "antecedent", "antecedent_index", "top": [[word, weight], ...]}]} for every pronoun, in whole words
    counted with [CLS] and [SEP]. weights: the (L, H, N, N) piece attention of this text when already computed.
    candidates: "all" (the head's largest weight anywhere) or "content" (its largest weight on another content
    word: a pretrained model's heads park most of their weight on [CLS], [SEP] and punctuation; the model's meta
    says which, as "coref_candidates")."""
    enc = encode(tokenizer, text)
    if weights is None:
        weights = encoded_weights(model, [enc])[0]
    layer, h = head
    words = word_attention(weights[layer, h], enc.words)                  # (W, W)
    allowed = content_words(enc.word_texts) if candidates == "content" else np.ones(len(enc.word_texts), bool)
    pronouns = []
    for i, t in enumerate(enc.word_texts):
        if t.lower() not in PRONOUNS:
            continue
        row = words[i]
        keep = allowed & (np.arange(len(row)) != i) if candidates == "content" else allowed
        order = [k for k in np.argsort(-row, kind="stable") if keep[k]][:top_k]
        if not order:                                   # no word the pronoun could stand for
            continue
        j = int(order[0])
        pronouns.append({"index": i, "token": t, "head": [layer, h], "antecedent": enc.word_texts[j],
                         "antecedent_index": j, "top": [[enc.word_texts[k], round(float(row[k]), 4)] for k in order]})
    return {"tokens": list(enc.word_texts), "pieces": [[enc.tokens[k] for k in w] for w in enc.words],
            "pronouns": pronouns}
