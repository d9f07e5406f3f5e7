"""A bigram language model with Witten-Bell smoothing (Witten & Bell 1991; Chen & Goodman 1998, eq. 9), the
baseline a small GPT must beat on token ids:

    P(w | v) = (c(v, w) + T(v) * P_uni(w)) / (c(v) + T(v))      if v was seen as a context, else P_uni(w)
    P_uni(w) = (c(w) + 1) / (N + V)                              add-one unigram, never zero

c(v, w): bigram count; c(v): bigrams starting with v; T(v): distinct words seen after v; N: tokens counted;
V: vocabulary size. `python -m model.data.bigram` prints the real-text corpus' BPE sizes and this baseline."""
import argparse
import json
import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Bigram:
    """Counts from training sequences: keys (sorted v*V + w) with counts, per-context totals and types."""
    vocab_size: int
    keys: np.ndarray           # (K,) int64, sorted
    pair_counts: np.ndarray    # (K,)
    unigram: np.ndarray        # (V,) add-one unigram probabilities
    context_total: np.ndarray  # (V,) c(v)
    context_types: np.ndarray  # (V,) T(v)

    @classmethod
    def fit(cls, sequences, vocab_size: int) -> "Bigram":
        """Count every token (for the unigram) and every adjacent pair inside each sequence."""
        V = vocab_size
        tokens = np.concatenate([np.asarray(s, dtype=np.int64) for s in sequences] or [np.zeros(0, np.int64)])
        pairs = np.concatenate([np.asarray(s[:-1], np.int64) * V + np.asarray(s[1:], np.int64)
                                for s in sequences if len(s) > 1] or [np.zeros(0, np.int64)])
        keys, counts = np.unique(pairs, return_counts=True)
        unigram = (np.bincount(tokens, minlength=V) + 1.0) / (len(tokens) + V)
        total = np.bincount(keys // V, weights=counts, minlength=V)
        types = np.bincount(keys // V, minlength=V).astype(np.float64)
        return cls(V, keys, counts.astype(np.float64), unigram, total, types)

    def prob(self, prev: np.ndarray, nxt: np.ndarray) -> np.ndarray:
        """P(nxt | prev) for arrays of ids (same shape)."""
        prev, nxt = np.asarray(prev, np.int64), np.asarray(nxt, np.int64)
        key = prev * self.vocab_size + nxt
        c = np.zeros(key.shape)
        if len(self.keys):
            at = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
            c = np.where(self.keys[at] == key, self.pair_counts[at], 0.0)
        total, types, uni = self.context_total[prev], self.context_types[prev], self.unigram[nxt]
        seen = total > 0
        return np.where(seen, (c + types * uni) / np.where(seen, total + types, 1.0), uni)

    def perplexity(self, sequences) -> float:
        """exp of the mean negative log-probability of every token after the first of each sequence."""
        logs, n = 0.0, 0
        for s in sequences:
            if len(s) > 1:
                logs += float(np.log(self.prob(s[:-1], s[1:])).sum())
                n += len(s) - 1
        return math.exp(-logs / n)

    def unigram_perplexity(self, sequences) -> float:
        """The same tokens scored by the add-one unigram alone."""
        nll = [-np.log(self.unigram[np.asarray(s[1:], np.int64)]).sum() for s in sequences if len(s) > 1]
        return math.exp(sum(nll) / sum(len(s) - 1 for s in sequences if len(s) > 1))


def main(argv=None) -> None:
    argparse.ArgumentParser(description="BPE sizes of the real-text corpus and its bigram baseline.").parse_args(argv)
    from model.data import real_text
    from model.data.bpe import BOS, EOS, UNK, group_words, load
    tok, corpus = load(), real_text.load()
    report: dict = {"vocab_size": len(tok)}
    seqs = {}
    for split, docs in (("train", corpus.train), ("heldout", corpus.heldout)):
        encs = [tok.encode(d.text) for d in docs]
        seqs[split] = [[BOS] + e.ids + [EOS] for e in encs]
        for source in real_text.PACKAGES:
            picked = [(d, e) for d, e in zip(docs, encs) if d.source == source]
            report[f"{split}_{source}"] = {"documents": len(picked), "characters": sum(len(d.text) for d, _ in picked),
                                           "bpe_tokens": sum(len(e.ids) for _, e in picked)}
        report[f"bpe_tokens_{split}"] = sum(len(e.ids) for e in encs)
        report[f"unk_rate_{split}_real"] = sum(e.ids.count(UNK) for e in encs) / max(1, sum(len(e.ids) for e in encs))
        if split == "heldout":
            words = [w for d, e in zip(docs, encs) if d.lang == "en" for w in group_words(e)
                     if w.text.isascii() and w.text.isalpha()]
            report["tokens_per_word_heldout_real"] = sum(len(w.pieces) for w in words) / len(words)
            report["one_token_words_heldout_real"] = sum(len(w.pieces) == 1 for w in words) / len(words)
            report["alphabetic_words_heldout_real"] = len(words)
    model = Bigram.fit(seqs["train"], len(tok))
    report["bigram_perplexity_heldout_real"] = model.perplexity(seqs["heldout"])
    report["unigram_perplexity_heldout_real"] = model.unigram_perplexity(seqs["heldout"])
    report["scored_tokens_heldout"] = sum(len(s) - 1 for s in seqs["heldout"])
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
