"""Per-head statistics of attention weights on one text, and automatic head labels with their rules.

Plain numpy (no torch, no streamlit). Input weights: (L, H, N, N), rows sum to 1 over allowed keys.
Statistics follow Clark et al. 2019 ("What does BERT look at?"): entropy, share on the previous
token / itself / [CLS] / [SEP]; mean attention distance as in Dosovitskiy et al. 2021.
"""
import numpy as np

from i18n import N_, _
from model.data.function_words import FUNCTION_WORDS

SPECIAL_TOKENS = ("[CLS]", "[SEP]", "[PAD]", "[BOS]", "[EOS]")
PRONOUNS = ("it", "its", "they", "them", "their", "theirs", "he", "him", "his", "she", "her", "hers")

# Thresholds of the automatic labels (shown on the page next to each label).
PREVIOUS_MIN = 0.5      # mean weight on the token just before
SINK_MIN = 0.5          # mean weight on [CLS]/[SEP]/[BOS]/[EOS] together
BROAD_MIN = 0.8         # mean entropy as a fraction of the largest possible (uniform) entropy
COREF_MIN = 0.5         # weight of the pronoun row's argmax, on an earlier content word
COREF_MARGIN = 0.3      # ... ahead of the row's second-largest weight
COREF_SHARE = 0.5       # share of the text's pronouns resolved that way
COREF_PRONOUNS = 3      # pronouns (with an earlier content word) a text needs before a head is labelled by them

# label -> its rule, in words; the thresholds are filled in by `rule` (in the language the page is shown in)
RULES = {
    N_("previous-token"): N_("mean weight on the previous token ≥ {previous:.0%}"),
    N_("sink"): N_("mean weight on [CLS]/[SEP]/[BOS]/[EOS] together ≥ {sink:.0%}"),
    N_("broad/positional"): N_("mean entropy ≥ {broad:.0%} of the uniform entropy (spreads over all tokens)"),
    N_("coreference"): N_(
        "on a text with at least {count} pronouns ({pronouns}, …), for at least {share:.0%} of them the largest "
        "weight of the pronoun's row lands on one earlier content word ≥ 2 tokens back (not punctuation, function "
        "word, pronoun or special token), is at least {least:.0%} and leads the row's second-largest weight by at "
        "least {margin:.0%}; never a broad head. On one text this shows a head that points pronouns at a word, not "
        "that it picks the right one: that needs labelled pronouns (the Coreference page)"),
}


def rule(label: str) -> str:
    """The rule of an automatic label, with its thresholds, in the current language."""
    return _(RULES[label]).format(previous=PREVIOUS_MIN, sink=SINK_MIN, broad=BROAD_MIN, share=COREF_SHARE,
                                  pronouns=", ".join(f"“{p}”" for p in PRONOUNS[:5]), least=COREF_MIN,
                                  margin=COREF_MARGIN, count=COREF_PRONOUNS)


def entropy(weights: np.ndarray) -> np.ndarray:
    """Mean over queries of -Σ_j w_ij ln w_ij, in nats. weights (L, H, N, N) -> (L, H)."""
    w = weights.astype(np.float64)
    logw = np.log(w, out=np.zeros_like(w), where=w > 0)          # 0 where w == 0, so 0·ln 0 counts as 0
    return -(w * logw).sum(-1).mean(-1)


def max_entropy(weights: np.ndarray) -> np.ndarray:
    """Mean over queries of ln(number of keys the query may see) (keys with weight > 0). -> (L, H)."""
    allowed = (weights > 0).sum(-1)                     # (L, H, N)
    return np.log(np.maximum(allowed, 1)).mean(-1)


def mean_distance(weights: np.ndarray) -> np.ndarray:
    """Mean over queries of Σ_j w_ij |i - j| (tokens). weights (L, H, N, N) -> (L, H)."""
    n = weights.shape[-1]
    dist = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])    # (N, N)
    return (weights.astype(np.float64) * dist).sum(-1).mean(-1)


def self_share(weights: np.ndarray) -> np.ndarray:
    """Mean weight a query puts on itself. -> (L, H)."""
    return np.diagonal(weights, axis1=-2, axis2=-1).astype(np.float64).mean(-1)


def previous_share(weights: np.ndarray) -> np.ndarray:
    """Mean weight on the token just before, over queries 1..N-1 (0 when N == 1). -> (L, H)."""
    if weights.shape[-1] < 2:
        return np.zeros(weights.shape[:2])
    return np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).astype(np.float64).mean(-1)


def token_share(weights: np.ndarray, tokens: list[str], names) -> np.ndarray:
    """Mean over queries of the total weight on keys whose token is in `names`. -> (L, H)."""
    cols = [j for j, t in enumerate(tokens) if t in names]
    if not cols:
        return np.zeros(weights.shape[:2])
    return weights[..., cols].astype(np.float64).sum(-1).mean(-1)


def antecedent_candidates(tokens: list[str], i: int) -> list[int]:
    """The positions a pronoun at position i may point back to: the earlier content words at least 2 tokens back
    (not punctuation, a function word, a pronoun or a special token), in order."""
    return [j for j in range(i - 1) if _content(tokens[j])]


def _pronoun_candidates(tokens: list[str]) -> list[tuple[int, list[int]]]:
    """(pronoun position, its antecedent_candidates) for every pronoun that has some."""
    out = []
    content = [j for j, t in enumerate(tokens) if _content(t)]
    for i, t in enumerate(tokens):
        if t.strip().lower() in PRONOUNS:
            cands = [j for j in content if j < i - 1]      # antecedent_candidates(tokens, i), found once
            if cands:
                out.append((i, cands))
    return out


def coref_score(weights: np.ndarray, tokens: list[str], pairs=None) -> np.ndarray | None:
    """Mean over pronoun queries of the largest weight on one earlier content word at distance ≥ 2.
    None when the text has no pronoun with an earlier content word. pairs: _pronoun_candidates(tokens), when
    already found. -> (L, H)."""
    scores = [weights[:, :, i, cands].max(-1) for i, cands in pairs or _pronoun_candidates(tokens)]
    return np.mean(scores, axis=0) if scores else None


def coref_resolved(weights: np.ndarray, tokens: list[str], pairs=None) -> np.ndarray | None:
    """Share of pronoun queries whose row's argmax (over all keys) is an earlier content word at distance ≥ 2,
    with weight ≥ COREF_MIN and at least COREF_MARGIN above the row's second-largest weight. None when the
    text has no pronoun with an earlier content word. -> (L, H)."""
    hits = []
    for i, cands in pairs or _pronoun_candidates(tokens):
        rows = weights[:, :, i, :].astype(np.float64)                  # (L, H, N), N ≥ 3 (a candidate is 2 back)
        top2 = np.sort(rows, axis=-1)[..., -2:]                        # (L, H, 2): second, best
        best, second = top2[..., 1], top2[..., 0]
        on_candidate = np.isin(rows.argmax(-1), cands)
        hits.append(on_candidate & (best >= COREF_MIN) & (best - second >= COREF_MARGIN))
    return np.mean(hits, axis=0) if hits else None


def _content(token: str) -> bool:
    t = token.strip().lower()
    return (token.upper() not in SPECIAL_TOKENS and t not in PRONOUNS and t not in FUNCTION_WORDS
            and any(c.isalnum() for c in t))


def head_stats(weights: np.ndarray, tokens: list[str]) -> dict[str, np.ndarray]:
    """Every statistic for every head: name -> (L, H) float64."""
    ent = entropy(weights)
    stats = {
        "entropy": ent,
        "entropy_fraction": ent / np.maximum(max_entropy(weights), 1e-12),
        "mean_distance": mean_distance(weights),
        "self": self_share(weights),
        "previous": previous_share(weights),
        "cls": token_share(weights, tokens, ("[CLS]", "[BOS]")),
        "sep": token_share(weights, tokens, ("[SEP]", "[EOS]")),
    }
    stats["sink"] = token_share(weights, tokens, ("[CLS]", "[SEP]", "[BOS]", "[EOS]"))
    pairs = _pronoun_candidates(tokens)
    coref = coref_score(weights, tokens, pairs)
    stats["coref"] = coref if coref is not None else np.full(weights.shape[:2], np.nan)
    resolved = coref_resolved(weights, tokens, pairs)
    stats["coref_resolved"] = resolved if resolved is not None else np.full(weights.shape[:2], np.nan)
    return stats


def pronoun_count(tokens: list[str]) -> int:
    """How many pronouns of the text have an earlier content word (the queries the coreference label reads)."""
    return len(_pronoun_candidates(tokens))


def label_heads(stats: dict[str, np.ndarray], *, pronouns: int) -> list[list[list[str]]]:
    """Automatic labels per head by the RULES: labels[layer][head] -> list of label names. pronouns: the text's
    pronoun_count; the coreference label needs COREF_PRONOUNS of them (one pronoun is no evidence of a habit) and
    excludes a broad head (a head that spreads over every token points at no word)."""
    L, H = stats["entropy"].shape
    labels = [[[] for _ in range(H)] for _ in range(L)]
    for layer in range(L):
        for head in range(H):
            got = labels[layer][head]
            if stats["previous"][layer, head] >= PREVIOUS_MIN:
                got.append("previous-token")
            if stats["sink"][layer, head] >= SINK_MIN:
                got.append("sink")
            broad = stats["entropy_fraction"][layer, head] >= BROAD_MIN
            if broad:
                got.append("broad/positional")
            c = stats["coref_resolved"][layer, head]
            if not broad and pronouns >= COREF_PRONOUNS and c >= COREF_SHARE:
                got.append("coreference")
    return labels
