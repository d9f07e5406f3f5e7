"""Labelled real text for classification: WordNet 3.0 noun definitions (Debian's `wordnet-base`), each labelled by
its synset's lexicographer file (wndb(5WN) field lex_filenum, lexnames(5WN)): is this the definition of an animal,
an artifact, a food, a person...? Only the definition is the input (no lemma, no example sentence).

Split as the real-text corpus is (model/data/real_text.py): a definition is held out exactly when the document its
synset became there is held out, so held-out definitions were never seen in pre-training either."""
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from model.data import real_text

# lex_filenum -> class, the concrete noun files (lexnames(5WN): 04 noun.act ... 27 noun.substance)
CLASSES = {4: "act", 5: "animal", 6: "artifact", 8: "body", 13: "food", 15: "location", 18: "person", 20: "plant",
           27: "substance"}
LABELS = tuple(sorted(CLASSES.values()))


@dataclass(frozen=True)
class Gloss:
    """One noun synset: its definition, its class (one of LABELS), its lemmas, and whether it is held out."""
    definition: str
    label: str
    lemmas: tuple[str, ...]
    heldout: bool


def parse_line(line: str) -> tuple[int, list[str], str, str] | None:
    """A data.noun line -> (lex_filenum, lemmas, definition, the corpus document real_text makes of it);
    None for the licence header."""
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
    return int(parts[1]), lemmas, real_text.clean(definition), real_text.clean(" ".join(sentences))


@lru_cache(maxsize=2)
def glosses(root: str = "/") -> tuple[Gloss, ...]:
    """Every noun definition of the classes in CLASSES, in file order (duplicate definitions kept once)."""
    path = Path(root) / real_text.WORDNET_DIR / "data.noun"
    if not path.is_file():
        raise real_text.MissingPackage(f"the classification data needs the Debian package 'wordnet-base' ({path} is "
                                       "missing): run `apt-get install -y wordnet-base`")
    out, seen = [], set()
    for line in path.read_text(encoding="latin-1").splitlines():
        parsed = parse_line(line)
        if parsed is None or parsed[0] not in CLASSES or not parsed[2] or parsed[2].lower() in seen:
            continue
        lex, lemmas, definition, document = parsed
        seen.add(definition.lower())
        out.append(Gloss(definition, CLASSES[lex], tuple(lemmas), real_text.is_heldout(document)))
    return tuple(out)


def split(root: str = "/") -> tuple[list[Gloss], list[Gloss]]:
    """(train, heldout) definitions."""
    every = glosses(root)
    return [g for g in every if not g.heldout], [g for g in every if g.heldout]
