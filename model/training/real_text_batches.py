"""Training batches of BPE ids from the real-text corpus (model/data/real_text.py), shared by the general
decoder and encoder recipes.

Documents are encoded exactly as `BPETokenizer.encode(text).ids` (no specials), cached as .npz under the
corpus cache folder, and packed end to end in a shuffled order into one id stream:

    decoder:  [BOS] doc [EOS] [BOS] doc [EOS] ...     windows of n + 1 ids (inputs and shifted targets)
    encoder:  doc [SEP] doc [SEP] ...                 windows [CLS] + n - 2 ids + [SEP]

WordNet documents are short and rarely repeat a phrase, so a share of windows gets one span copied to a
later place in the same window: the second copy can be predicted by looking back at the first (what
induction heads do, Olsson et al. 2022).
"""
import hashlib
import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from model.data import real_text
from model.data.bpe import BOS, CLS, EOS, MASK, SEP, SPECIALS, BPETokenizer, normalize, with_prefix


def encode_texts(tok: BPETokenizer, texts: list[str]) -> list[list[int]]:
    """Ids of each text, the same as tok.encode(text).ids, but encoded in one batch (fast)."""
    plain = [normalize(t) for t in texts]
    prefixed = [with_prefix(t) for t in plain]
    out = [e.ids for e in tok.tokenizer.encode_batch(prefixed, add_special_tokens=False)]
    for i, (text, pre, ids) in enumerate(zip(plain, prefixed, out)):
        if pre != text and ids and tok.tokenizer.id_to_token(ids[0]) == "Ġ" and not text[0].isspace():
            out[i] = tok.tokenizer.encode(text, add_special_tokens=False).ids    # dummy space stood alone
    return out


@dataclass(frozen=True)
class Encoded:
    """The documents of one split in ids: doc i is ids[offsets[i]:offsets[i + 1]] (no specials)."""
    ids: np.ndarray        # (total,) int32
    offsets: np.ndarray    # (n_docs + 1,) int64

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def doc(self, i: int) -> np.ndarray:
        return self.ids[self.offsets[i]:self.offsets[i + 1]]


@lru_cache(maxsize=1)
def corpus() -> real_text.Corpus:
    """The real-text corpus, read once per process."""
    return real_text.load()


def encode_split(tok: BPETokenizer, split: str, max_docs: int | None = None,
                 sources: tuple[str, ...] | None = None, docs_from: real_text.Corpus | None = None) -> Encoded:
    """The train or heldout documents (the first max_docs of them; of the named sources only, when given)
    of docs_from (default: the real-text corpus) in ids, cached by content."""
    docs = [d for d in getattr(docs_from or corpus(), split) if sources is None or d.source in sources][:max_docs]
    texts = [d.text for d in docs]
    key = hashlib.sha256(tok.tokenizer.to_str().encode())
    for t in texts:
        key.update(t.encode("utf-8") + b"\0")
    path = real_text.cache_dir() / f"bpe_ids-{split}-{key.hexdigest()[:16]}.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as f:
            return Encoded(f["ids"], f["offsets"])
    ids = encode_texts(tok, texts)
    offsets = np.zeros(len(ids) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(x) for x in ids])
    flat = np.fromiter((i for x in ids for i in x), dtype=np.int32, count=int(offsets[-1]))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")      # one per process: two may build it at once
    np.savez(tmp, ids=flat, offsets=offsets)
    tmp.replace(path)
    return Encoded(flat, offsets)


def stream(enc: Encoded, kind: str, seed: int = 0) -> np.ndarray:
    """All documents in a shuffled order as one int64 stream: decoder [BOS] doc [EOS] ...; encoder doc [SEP] ..."""
    order = np.random.default_rng(seed).permutation(len(enc))
    parts = []
    for i in order:
        d = enc.doc(i)
        parts += [[BOS], d, [EOS]] if kind == "decoder" else [d, [SEP]]
    return np.concatenate(parts).astype(np.int64)


def repeat_span(window: np.ndarray, rng: np.random.Generator, min_len: int = 8, max_len: int = 32) -> None:
    """Copy a random span of `window` (1-D, in place) to a later, non-overlapping place in it."""
    n = len(window)
    longest = min(max_len, n // 2)
    m = int(rng.integers(min(min_len, longest), longest + 1))
    a = int(rng.integers(0, n - 2 * m + 1))
    b = int(rng.integers(a + m, n - m + 1))
    window[b:b + m] = window[a:a + m].copy()


class Windows:
    """Random windows of a stream. decoder: (B, n + 1) ids; encoder: (B, n) ids as [CLS] ... [SEP].
    repeat_share: the share of windows given a repeated span."""

    def __init__(self, ids: np.ndarray, n: int, kind: str, repeat_share: float = 0.25, seed: int = 0):
        self.ids, self.n, self.kind, self.repeat_share = ids, n, kind, repeat_share
        self.body = n + 1 if kind == "decoder" else n - 2
        self.rng = np.random.default_rng(seed)

    def batch(self, size: int) -> torch.Tensor:
        starts = self.rng.integers(0, len(self.ids) - self.body, size)
        rows = np.stack([self.ids[s:s + self.body] for s in starts])
        for r in np.flatnonzero(self.rng.random(size) < self.repeat_share):
            repeat_span(rows[r], self.rng)
        if self.kind == "encoder":
            rows = np.concatenate([np.full((size, 1), CLS), rows, np.full((size, 1), SEP)], axis=1)
        return torch.from_numpy(rows)


def mask_for_mlm(ids: torch.Tensor, vocab_size: int, gen: torch.Generator, prob: float = 0.15,
                 keep_random: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT masking of ids (B, T): `prob` of the non-special tokens are chosen; of those 80% become [MASK],
    10% a random token, 10% stay (keep_random=False: all become [MASK]). Returns (inputs, labels) with
    labels -100 where nothing is predicted."""
    chosen = (torch.rand(ids.shape, generator=gen) < prob) & (ids >= len(SPECIALS))
    labels = torch.where(chosen, ids, torch.full_like(ids, -100))
    inputs = ids.clone()
    if not keep_random:
        inputs[chosen] = MASK
        return inputs, labels
    u = torch.rand(ids.shape, generator=gen)
    inputs[chosen & (u < 0.8)] = MASK
    rand = chosen & (u >= 0.8) & (u < 0.9)
    inputs[rand] = torch.randint(len(SPECIALS), vocab_size, (int(rand.sum()),), generator=gen)
    return inputs, labels


def heldout_sample(enc: Encoded, every: int, limit: int, rule: str) -> list[list[int]]:
    """A fixed evaluation sample: every `every`-th held-out document with the model's specials
    ("bos": [BOS] doc [EOS]; "cls_sep": [CLS] doc [SEP]), cut to `limit` ids."""
    out = []
    for i in range(0, len(enc), every):
        d = enc.doc(i).tolist()
        out.append(([BOS] + d + [EOS] if rule == "bos" else [CLS] + d + [SEP])[:limit])
    return out


def length_batches(seqs: list[list[int]], size: int = 32) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Sequences sorted by length and padded with [PAD] (id 0) on the right: [(ids (B, T), lengths (B,))]."""
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
    out = []
    for k in range(0, len(order), size):
        chunk = [seqs[i] for i in order[k:k + size]]
        lengths = torch.tensor([len(s) for s in chunk])
        ids = torch.zeros(len(chunk), int(lengths.max()), dtype=torch.long)
        for r, s in enumerate(chunk):
            ids[r, :len(s)] = torch.tensor(s)
        out.append((ids, lengths))
    return out
