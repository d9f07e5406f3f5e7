"""Labelled real text for classification: the example sentences of WordNet 3.0 (Debian's `wordnet-base`) with the
word each one illustrates replaced by [MASK], labelled by the part of speech of the synset it illustrates (the file
it sits in: data.noun, data.verb, data.adj, data.adv). Which kind of word stood here? Only the sentence around the
gap tells: "the parachutist didn't want to [MASK]" (verb), "it is [MASK] for a policeman to accept gifts"
(adjective).

The word is found in its example as one of the synset's lemmas or an inflection of it (regular endings, and the
irregular forms of WordNet's *.exc files); an example where no lemma is found, or where it occurs twice, is left out.
Split as the real-text corpus is (model/data/real_text.py): an example is held out exactly when the document its
synset became there is held out, so held-out examples were never seen in pre-training either."""
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from model.data import real_text
from model.engine.cache_sizes import WORDNET_ROOTS

FILES = {"data.noun": "noun", "data.verb": "verb", "data.adj": "adjective", "data.adv": "adverb"}
LABELS = tuple(sorted(FILES.values()))
MASK = "[MASK]"
_TOKEN = re.compile(r"[A-Za-z0-9']+")           # the words of an example; a hyphen or a space separates them


@dataclass(frozen=True)
class Masked:
    """One example sentence: text (the word replaced by [MASK]), label (one of LABELS), the word as it stood,
    the synset's lemmas, and whether it is held out."""
    text: str
    label: str
    word: str
    lemmas: tuple[str, ...]
    heldout: bool


@lru_cache(maxsize=WORDNET_ROOTS)
def irregular(root: str = "/") -> dict[str, frozenset[str]]:
    """base form -> its irregular inflections, from WordNet's noun/verb/adj/adv.exc ("geese goose")."""
    out: dict[str, set[str]] = {}
    for pos in ("noun", "verb", "adj", "adv"):
        path = Path(root) / real_text.WORDNET_DIR / f"{pos}.exc"
        for line in path.read_text(encoding="latin-1").splitlines():
            inflected, *bases = line.split()
            for base in bases:
                out.setdefault(base, set()).add(inflected)
    return {k: frozenset(v) for k, v in out.items()}


def forms(word: str, exceptions: dict[str, frozenset[str]]) -> set[str]:
    """A lowercase word and its inflections: -s, -es, -ed, -d, -ing, -er, -est, -'s; a final e dropped before
    -ing, y -> i before -es, -ed, -er, -est; a final consonant doubled after one vowel (stop -> stopped); the
    irregular forms."""
    w = word.lower()
    out = {w} | {w + s for s in ("s", "es", "ed", "d", "ing", "er", "est", "'s")} | set(exceptions.get(w, ()))
    if w.endswith("e"):
        out.add(w[:-1] + "ing")
    if w.endswith("y"):
        out |= {w[:-1] + s for s in ("ies", "ied", "ier", "iest")}
    if len(w) > 2 and w[-1] not in "aeiouwxy" and w[-2] in "aeiou":
        out |= {w + w[-1] + s for s in ("ed", "ing", "er", "est")}
    return out


def find(example: str, lemmas, exceptions: dict[str, frozenset[str]]) -> tuple[int, int] | None:
    """(start, end) characters of the first lemma (in the synset's order) found in the example, each of its words
    (split at spaces and hyphens) in some form; None when none is found or the one found occurs twice."""
    tokens = [(m.start(), m.end(), m.group().lower()) for m in _TOKEN.finditer(example)]
    for lemma in lemmas:
        words = [forms(w, exceptions) for w in re.split(r"[ -]+", lemma) if w]
        if not words:
            continue
        hits = [(tokens[i][0], tokens[i + len(words) - 1][1]) for i in range(len(tokens) - len(words) + 1)
                if all(tokens[i + j][2] in f for j, f in enumerate(words))]
        if len(hits) == 1:
            return hits[0]
        if hits:
            return None
    return None


def parse_line(line: str) -> tuple[list[str], list[str], str] | None:
    """A data.* line -> (lemmas, example sentences, the corpus document real_text makes of it); None for the
    licence header."""
    if line.startswith(" ") or "|" not in line:
        return None
    fields, gloss = line.split("|", 1)
    parts = fields.split()
    n_words = int(parts[3], 16)
    lemmas = [re.sub(r"\(.*\)$", "", w).replace("_", " ") for w in parts[4:4 + 2 * n_words:2]]
    examples = [e.strip() for e in real_text._QUOTED.findall(gloss)]
    definition = real_text._QUOTED.sub("", gloss).strip(" ;")
    sentences = [f"{', '.join(lemmas)}: {definition}."] if definition else []
    sentences += [real_text._sentence(e) for e in examples if e]
    return lemmas, [e for e in examples if e], real_text.clean(" ".join(sentences))


@lru_cache(maxsize=WORDNET_ROOTS)
def examples(root: str = "/") -> tuple[Masked, ...]:
    """Every example sentence whose word is found, masked, in file order (noun, verb, adj, adv); a masked text seen
    twice is kept once."""
    folder = Path(root) / real_text.WORDNET_DIR
    if not (folder / "data.noun").is_file():
        raise real_text.MissingPackage(f"the classification data needs the Debian package 'wordnet-base' ({folder} "
                                       "has no data.noun): run `apt-get install -y wordnet-base`")
    exceptions, out, seen = irregular(root), [], set()
    for name, label in FILES.items():
        for line in (folder / name).read_text(encoding="latin-1").splitlines():
            parsed = parse_line(line)
            if parsed is None:
                continue
            lemmas, sentences, document = parsed
            held = real_text.is_heldout(document)
            for sentence in sentences:
                span = find(sentence, lemmas, exceptions)
                if span is None:
                    continue
                text = real_text.clean(sentence[:span[0]] + MASK + sentence[span[1]:])
                if text.lower() in seen:
                    continue
                seen.add(text.lower())
                out.append(Masked(text, label, sentence[span[0]:span[1]], tuple(lemmas), held))
    return tuple(out)


def split(root: str = "/") -> tuple[list[Masked], list[Masked]]:
    """(train, heldout) examples."""
    every = examples(root)
    return [e for e in every if not e.heldout], [e for e in every if e.heldout]
