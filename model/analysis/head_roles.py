"""The roles of attention heads measured over many passages of real text, as Clark et al. 2019 ("What does BERT
look at?", §3) measured BERT's: per head, the mean share of attention on the previous token, the next token, [CLS]
(or [BOS]), [SEP] (or [EOS]), punctuation and other copies of the query's own token, and the mean entropy; a role
wherever a share passes its threshold (THRESHOLDS; a head may have several roles or none).

Plain numpy (no torch, no streamlit). Input: (weights (L, H, N, N), tokens) pairs, one per passage; the
per-passage statistics are model/analysis/head_stats.py's. `python -m model.head_roles NAME --write` measures a
shipped model and stores the result in assets/head_roles/<NAME>.json, which the explorer and `summary` read.
"""
import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from i18n import N_, _
from labels import head_label
from model.analysis import head_stats

ASSETS = Path(__file__).resolve().parents[2] / "assets"
FOLDER = "head_roles"                   # assets/head_roles/<model>.json
START_TOKENS = ("[CLS]", "[BOS]")
END_TOKENS = ("[SEP]", "[EOS]")

# Thresholds (Clark et al. 2019 call a head by what it gives most of its attention to); the same as the explorer's
# one-text labels where both have the rule.
PREVIOUS_MIN = head_stats.PREVIOUS_MIN  # 0.5 of the attention on the token just before
NEXT_MIN = 0.5                          # ... on the token just after
SINK_MIN = head_stats.SINK_MIN          # 0.5 on [CLS] (or [BOS]); apart, 0.5 on [SEP] (or [EOS])
PUNCTUATION_MIN = 0.5                   # ... on punctuation tokens together
SAME_MIN = 0.3                          # ... on the other occurrences of the query's own token (queries that have one)
BROAD_MIN = head_stats.BROAD_MIN        # mean entropy ≥ 0.8 of the uniform entropy over the keys each query may see

SCORES = ("previous", "next", "cls", "sep", "punctuation", "same", "entropy_fraction")
# role -> (score it is read from, threshold); "[CLS]" and "[SEP]" are renamed after the tokens the model reads
ROLES = {
    N_("previous-token"): ("previous", PREVIOUS_MIN),
    N_("next-token"): ("next", NEXT_MIN),
    "[CLS] sink": ("cls", SINK_MIN),
    "[SEP] sink": ("sep", SINK_MIN),
    N_("punctuation"): ("punctuation", PUNCTUATION_MIN),
    N_("same-token"): ("same", SAME_MIN),
    N_("broad"): ("entropy_fraction", BROAD_MIN),
}
SINK = N_("{token} sink")
EVIDENCE = {        # score -> what it measured, in words
    "previous": N_("{share:.0%} of its attention on the previous token"),
    "next": N_("{share:.0%} of its attention on the next token"),
    "cls": N_("{share:.0%} of its attention on {token}"),
    "sep": N_("{share:.0%} of its attention on {token}"),
    "punctuation": N_("{share:.0%} of its attention on punctuation"),
    "same": N_("{share:.0%} of a repeated token's attention on its other occurrences"),
    "entropy_fraction": N_("mean entropy {share:.0%} of the uniform entropy"),
}


@dataclass(frozen=True)
class HeadRoles:
    """scores: name (SCORES) -> (L, H) float64, NaN where no query could be counted; roles[layer][head]: role
    names; passages and tokens counted; start/end: the special tokens the passages open and close with (None when
    absent), after which the sink roles are named."""
    scores: dict[str, np.ndarray]
    roles: list[list[list[str]]]
    passages: int
    tokens: int
    start: str | None
    end: str | None

    def thresholds(self) -> dict[str, float]:
        """role name -> its threshold, for the roles these passages can show (no [SEP] sink without a [SEP])."""
        return {name: ROLES[role][1] for role, name in role_names(self.start, self.end).items()}

    def counts(self) -> dict[str, int]:
        """role name -> how many heads have it."""
        return {name: sum(name in r for row in self.roles for r in row) for name in self.thresholds()}


def role_names(start: str | None = "[CLS]", end: str | None = "[SEP]") -> dict[str, str]:
    """ROLES' keys -> the names they take for a model read with `start` and `end` ("[BOS] sink" for a GPT); a sink
    whose token the model does not read is left out."""
    out = {}
    for role in ROLES:
        if role == "[CLS] sink":
            if start:
                out[role] = f"{start} sink"
        elif role == "[SEP] sink":
            if end:
                out[role] = f"{end} sink"
        else:
            out[role] = role
    return out


def is_punctuation(token: str) -> bool:
    """A token made of punctuation characters only (Unicode category P*), spaces aside: ",", " --", "...", ' "'."""
    t = token.strip()
    return bool(t) and all(unicodedata.category(c).startswith("P") for c in t)


def next_share(weights: np.ndarray) -> np.ndarray:
    """Mean weight on the token just after, over queries 0..N-2 (0 when N == 1). weights (L, H, N, N) -> (L, H)."""
    if weights.shape[-1] < 2:
        return np.zeros(weights.shape[:2])
    return np.diagonal(weights, offset=1, axis1=-2, axis2=-1).astype(np.float64).mean(-1)


def visible_keys(weights: np.ndarray) -> np.ndarray:
    """(N, N) bool: the keys each query may see, those some head gives weight to (all of them in an encoder, the
    earlier ones and itself in a decoder). weights (L, H, N, N)."""
    return (weights > 0).any(axis=(0, 1))


def same_token_sums(weights: np.ndarray, tokens: list[str]) -> tuple[np.ndarray, int]:
    """Sum over queries of the weight on other positions holding the identical token string, over the queries that
    have such a position among the keys they may see (a decoder's query sees only earlier ones; special tokens are
    left out), and how many such queries there are. -> ((L, H), count)."""
    t = np.array(tokens, dtype=object)
    same = (t[:, None] == t[None, :]) & ~np.eye(len(t), dtype=bool) & visible_keys(weights)     # (N, N)
    same[[i for i, tok in enumerate(tokens) if tok in head_stats.SPECIAL_TOKENS]] = False
    rows = same.any(-1)
    if not rows.any():
        return np.zeros(weights.shape[:2]), 0
    total = (weights[:, :, rows, :].astype(np.float64) * same[rows]).sum(axis=(-1, -2))
    return total, int(rows.sum())


def measure(runs) -> HeadRoles:
    """Scores and roles of every head over passages. runs: (weights (L, H, N, N), tokens) pairs, N may differ.
    Each score is a mean over all the passages' queries (not a mean of per-passage means), so a long passage
    counts for more; the entropy share is the summed entropy over the summed uniform entropy, ln(keys the query may
    see) (head_stats' "entropy_fraction", over every passage, with the keys seen by any head as the ones a query may
    see, so that a head that gives some keys exactly 0 is not called broad over the rest)."""
    sums, counts = {}, dict.fromkeys(SCORES, 0)
    ent = ent_max = 0.0
    passages = tokens_seen = 0
    start = end = None
    for weights, tokens in runs:
        tokens = list(tokens)
        n = len(tokens)
        if weights.shape[-2:] != (n, n):
            raise ValueError(f"weights of shape {weights.shape} do not match {n} tokens")
        start = start or (tokens[0] if tokens[0] in START_TOKENS else None)
        end = end or (tokens[-1] if tokens[-1] in END_TOKENS else None)
        punct = {t for t in tokens if is_punctuation(t)}
        same, n_same = same_token_sums(weights, tokens)
        add = {"previous": (head_stats.previous_share(weights) * (n - 1), n - 1),
               "next": (next_share(weights) * (n - 1), n - 1),
               "cls": (head_stats.token_share(weights, tokens, START_TOKENS) * n, n),
               "sep": (head_stats.token_share(weights, tokens, END_TOKENS) * n, n),
               "punctuation": (head_stats.token_share(weights, tokens, punct) * n, n),
               "same": (same, n_same)}
        for key, (total, count) in add.items():
            sums[key] = sums.get(key, 0.0) + total
            counts[key] += count
        ent = ent + head_stats.entropy(weights) * n
        ent_max = ent_max + np.log(np.maximum(visible_keys(weights).sum(-1), 1)).sum()
        passages, tokens_seen = passages + 1, tokens_seen + n
    if not passages:
        raise ValueError("no passage to measure")
    shape = np.shape(ent)
    scores = {k: sums[k] / counts[k] if counts[k] else np.full(shape, np.nan) for k in sums}
    scores["entropy_fraction"] = ent / np.maximum(ent_max, 1e-12)
    return HeadRoles(scores, roles_of(scores, start, end), passages, tokens_seen, start, end)


def roles_of(scores: dict[str, np.ndarray], start: str | None = "[CLS]", end: str | None = "[SEP]"):
    """roles[layer][head] -> the role names whose score reaches its threshold (NaN reaches none)."""
    L, H = scores["entropy_fraction"].shape
    names = role_names(start, end)
    return [[[names[role] for role, (key, least) in ROLES.items()
              if role in names and scores[key][layer, head] >= least]     # NaN >= x is False
             for head in range(H)] for layer in range(L)]


def record(result: HeadRoles, **about) -> dict:
    """The result as the JSON object stored in assets/head_roles/<model>.json: `about` (model, command, date,
    source…) first, then the counts, thresholds and every head's scores (4 decimals, null for NaN) and roles."""
    L, H = result.scores["entropy_fraction"].shape
    names = role_names(result.start, result.end)
    return {**about, "passages": result.passages, "tokens": result.tokens,
            "special_tokens": {"start": result.start, "end": result.end},
            "thresholds": result.thresholds(),
            "role_scores": {names[r]: ROLES[r][0] for r in names},
            "counts": result.counts(),
            "heads": {head_label(layer, head): {
                "scores": {k: None if np.isnan(v := float(result.scores[k][layer, head])) else round(v, 4)
                           for k in SCORES},
                "roles": result.roles[layer][head]} for layer in range(L) for head in range(H)}}


def path(name: str, assets: Path | None = None) -> Path:
    """assets/head_roles/<name>.json (`assets` defaults to the repository's assets/)."""
    return Path(assets or ASSETS) / FOLDER / f"{name}.json"


def load(name: str, assets: Path | None = None) -> dict | None:
    """The stored measurement of a model, or None when there is none (or it cannot be read)."""
    try:
        data = json.loads(path(name, assets).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("heads"), dict) else None


def summary(name: str, assets: Path | None = None) -> dict:
    """For `python -m model.evaluate --json`: {"head_roles_passages": n, "head_roles": {"L0 H1": [roles], ...}
    (heads with a role), "head_roles_counts": {role: heads}}; {} when the model has no stored measurement."""
    data = load(name, assets)
    if data is None:
        return {}
    return {"head_roles_passages": data["passages"],
            "head_roles": {h: v["roles"] for h, v in data["heads"].items() if v["roles"]},
            "head_roles_counts": data["counts"]}


def role_label(name: str) -> str:
    """A role's name in the current language ("[SEP] sink" -> "[SEP] 汇聚")."""
    return _(SINK).format(token=name[:-len(" sink")]) if name.endswith(" sink") else _(name)


def evidence(data: dict, head: str) -> list[str]:
    """Each role of a head in a stored measurement (`load`), with what was measured and its rule, in the current
    language: "[SEP] sink (62% of its attention on [SEP]; rule ≥ 50%)"."""
    entry = data["heads"].get(head, {})
    out = []
    for name in entry.get("roles", []):
        key, least = data["role_scores"][name], data["thresholds"][name]
        token = name[:-len(" sink")] if name.endswith(" sink") else ""
        measured = _(EVIDENCE[key]).format(share=entry["scores"][key], token=token)
        out.append(_("{role} ({evidence}; rule ≥ {least:.0%})").format(role=role_label(name), evidence=measured,
                                                                      least=least))
    return out
