"""Word classes grown from WordNet 3.0 as Debian's `wordnet-base` installs it (/usr/share/wordnet): the one-word
nouns under a synset's hyponym tree ("kinds of restaurant") and the adjectives similar to a head adjective.

Files read (format: wndb(5WN)): index.noun / index.adj give a lemma's synsets in sense order and how often
the lemma was sense-tagged in the Brown corpus (a familiarity filter); data.noun / data.adj give each
synset's lemmas and pointers ("~" hyponym, "&" similar to).
"""
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from model.engine.cache_sizes import WORDNET_PARTS

WORDNET_DIR = Path("/usr/share/wordnet")


@dataclass(frozen=True)
class Synset:
    lemmas: tuple[str, ...]
    pointers: tuple[tuple[str, str], ...]        # (symbol, target offset) within the same part of speech


def _require(path: Path) -> Path:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: install WordNet with `apt-get install -y wordnet-base`")
    return path


@lru_cache(maxsize=WORDNET_PARTS)
def synsets(pos: str, root: str = str(WORDNET_DIR)) -> dict[str, Synset]:
    """offset -> Synset for pos "noun" or "adj" (license header lines skipped)."""
    out = {}
    tag = {"noun": "n", "adj": "a"}[pos]
    with open(_require(Path(root) / f"data.{pos}"), encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):
                continue
            fields = line.split(" | ")[0].split()
            n_words = int(fields[3], 16)
            lemmas = tuple(fields[4 + 2 * i].split("(")[0] for i in range(n_words))
            at = 4 + 2 * n_words
            n_ptr = int(fields[at])
            ptrs = [fields[at + 1 + 4 * i: at + 5 + 4 * i] for i in range(n_ptr)]
            out[fields[0]] = Synset(lemmas, tuple((p[0], p[1]) for p in ptrs if p[2] in (tag, "s")))
    return out


@lru_cache(maxsize=WORDNET_PARTS)
def index(pos: str, root: str = str(WORDNET_DIR)) -> dict[str, tuple[tuple[str, ...], int]]:
    """lemma -> (its synset offsets in sense order, how many times it was sense-tagged)."""
    out = {}
    with open(_require(Path(root) / f"index.{pos}"), encoding="utf-8") as f:
        for line in f:
            if line.startswith(" "):
                continue
            fields = line.split()
            n_senses, n_ptr = int(fields[2]), int(fields[3])
            tagged = int(fields[5 + n_ptr])
            out[fields[0]] = (tuple(fields[6 + n_ptr: 6 + n_ptr + n_senses]), tagged)
    return out


def _plain(lemma: str, max_len: int) -> bool:
    return lemma.isalpha() and lemma.isascii() and lemma.islower() and len(lemma) <= max_len


def hyponyms(lemma: str, sense: int = 1, depth: int = 2, tagged_only: bool = True, max_len: int = 12,
             root: str = str(WORDNET_DIR)) -> list[str]:
    """One-word nouns naming kinds of `lemma` (its sense-th noun sense), up to `depth` hyponym steps below it,
    in WordNet's order; tagged_only keeps lemmas sense-tagged at least once (familiar words)."""
    table, idx = synsets("noun", root), index("noun", root)
    frontier, seen, out = [idx[lemma][0][sense - 1]], set(), []
    for _ in range(depth):
        frontier = [t for off in frontier for sym, t in table[off].pointers if sym == "~" and t not in seen]
        seen.update(frontier)
        for off in frontier:
            for w in table[off].lemmas:
                if _plain(w, max_len) and w not in out and (not tagged_only or idx.get(w, ((), 0))[1] > 0):
                    out.append(w)
    return out


def similar_adjectives(lemma: str, sense: int = 1, max_len: int = 12, root: str = str(WORDNET_DIR)) -> list[str]:
    """One-word adjectives WordNet lists as similar to `lemma` (its sense-th adjective sense)."""
    table = synsets("adj", root)
    head = table[index("adj", root)[lemma][0][sense - 1]]
    out = []
    for off in [t for sym, t in head.pointers if sym == "&"]:
        out += [w for w in table[off].lemmas if _plain(w, max_len) and w not in out]
    return out
