"""Real text nobody on this project wrote, assembled from Debian packages installed by name: WordNet 3.0's
glosses and example sentences (`wordnet-base`), English fortune cookies (`fortunes`, `fortunes-min`),
Chinese fortunes and poems (`fortunes-zh`), and longer English prose (model/data/real_text_sources.py: the World
English Bible, the Jargon File, the Debian Administrator's Handbook). Cleaned (NFC, ANSI codes and control
characters removed), deduplicated, and split into train and held-out documents by a hash of each document, so
the split is stable.

Nothing is written into the repository; the assembled documents may be cached under $ATTENTION_LAB_CACHE
(default ~/.cache/attention-lab/). docs/data-card.md describes the sources, sizes and licences."""
import hashlib
import json
import os
import re
import shutil
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path

from model.data import real_text_sources

CLEANING_VERSION = 3        # bump when a rule below changes, so cached corpora are rebuilt
WRAPPED_CJK_LINE = 24      # a Chinese line this long (characters) was wrapped, not broken on purpose
HELDOUT_PERCENT = 5         # share of documents (by hash) held out from training

WORDNET_DIR = "usr/share/wordnet"
WORDNET_FILES = ("data.noun", "data.verb", "data.adj", "data.adv")
FORTUNE_DIR = "usr/share/games/fortunes"
FORTUNES_ZH = ("chinese", "tang300", "song100")
FORTUNE_SKIP = ("ascii-art",)   # pictures made of characters, not text
# which package installs which files, for the error message when one is missing
PACKAGES = {"wordnet": "wordnet-base", "fortunes": "fortunes", "fortunes-zh": "fortunes-zh",
            **real_text_sources.SOURCES}

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")     # keeps \t and \n, which are handled apart
_QUOTED = re.compile(r'"([^"]+)"')
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")


@dataclass(frozen=True)
class Document:
    """One document: text (NFC, cleaned), source ('wordnet' | 'fortunes' | 'fortunes-zh' | 'bible' | 'jargon' |
    'handbook'), lang ('en' | 'zh')."""
    text: str
    source: str
    lang: str


@dataclass(frozen=True)
class Corpus:
    """Documents split by hash: train and heldout never share a text."""
    train: list[Document]
    heldout: list[Document]


class MissingPackage(RuntimeError):
    """A Debian package the corpus needs is not installed."""


def _require(path: Path, source: str) -> Path:
    if not path.exists():
        pkg = PACKAGES[source]
        raise MissingPackage(f"the real-text corpus needs the Debian package {pkg!r} ({path} is missing): "
                             f"run `apt-get install -y {pkg}`")
    return path


def clean(text: str) -> str:
    """NFC, no ANSI colour codes or control characters, tabs as spaces, no trailing spaces, no blank edges."""
    text = unicodedata.normalize("NFC", _ANSI.sub("", text))
    text = _CONTROL.sub("", text.replace("\t", " ").replace("\r\n", "\n").replace("\r", "\n"))
    lines = [re.sub(r" {2,}", " ", line).strip() for line in text.split("\n")]
    return "\n".join(lines).strip()


def _join_lines(lines: list[str]) -> str:
    """Unwrap hard-wrapped lines: a space between Latin lines; Chinese lines join with nothing when the
    first is long (wrapped prose) and keep their break when short (a title, an author, a line of verse)."""
    out, previous = "", ""
    for line in lines:
        if out and (_CJK.match(out[-1]) or _CJK.match(line[0])):
            out += "" if len(previous) >= WRAPPED_CJK_LINE else "\n"
        elif out:
            out += " "
        out, previous = out + line, line
    return out


def unwrap(text: str) -> str:
    """Paragraphs (split at blank lines) become single lines joined by '\\n'."""
    paragraphs = re.split(r"\n\s*\n", text)
    return "\n".join(_join_lines([ln for ln in p.split("\n") if ln]) for p in paragraphs if p.strip())


def looks_like_art(text: str) -> bool:
    """True for pictures drawn in characters: few letters among the non-space characters."""
    chars = [c for c in text if not c.isspace()]
    letters = sum(c.isalpha() for c in chars)
    return not chars or letters < 0.6 * len(chars)


def _sentence(example: str) -> str:
    """A WordNet example as a sentence: capital first letter, closing stop."""
    example = example[0].upper() + example[1:]
    return example if example[-1] in ".!?" else example + "."


def wordnet_documents(root: Path) -> list[Document]:
    """One document per synset: 'lemma, lemma: gloss.' then each quoted example as its own sentence."""
    docs = []
    for name in WORDNET_FILES:
        path = _require(root / WORDNET_DIR / name, "wordnet")
        for line in path.read_text(encoding="latin-1").splitlines():
            if line.startswith(" ") or "|" not in line:        # licence header lines start with spaces
                continue
            fields, gloss = line.split("|", 1)
            parts = fields.split()
            n_words = int(parts[3], 16)
            lemmas = [re.sub(r"\(.*\)$", "", w).replace("_", " ") for w in parts[4:4 + 2 * n_words:2]]
            examples = [e.strip() for e in _QUOTED.findall(gloss)]
            definition = _QUOTED.sub("", gloss).strip(" ;")
            sentences = [f"{', '.join(lemmas)}: {definition}."] if definition else []
            sentences += [_sentence(e) for e in examples if e]
            docs.append(Document(clean(" ".join(sentences)), "wordnet", "en"))
    return docs


def fortune_records(path: Path) -> list[str]:
    """The records of one fortune file (separated by lines holding only '%'), cleaned and unwrapped."""
    raw = path.read_bytes().decode("utf-8", errors="replace")
    records = re.split(r"^%\s*$", raw, flags=re.MULTILINE)
    return [unwrap(clean(r)) for r in records if r.strip()]


def fortune_documents(root: Path) -> list[Document]:
    """English fortunes from every plain fortune file (not *.dat indexes, *.u8 links or ascii-art) and the
    Chinese files of fortunes-zh; pictures made of characters are dropped."""
    folder = _require(root / FORTUNE_DIR, "fortunes")
    for name in FORTUNES_ZH:
        _require(folder / name, "fortunes-zh")
    _require(folder / "cookie", "fortunes")     # cookie: from `fortunes`, not `fortunes-min`
    docs = []
    for path in sorted(folder.iterdir()):
        if path.suffix in (".dat", ".u8") or path.is_symlink() or not path.is_file() or path.name in FORTUNE_SKIP:
            continue
        zh = path.name in FORTUNES_ZH
        for text in fortune_records(path):
            if text and not looks_like_art(text):
                docs.append(Document(text, "fortunes-zh" if zh else "fortunes", "zh" if zh else "en"))
    return docs


def dedupe(docs: list[Document]) -> list[Document]:
    """First occurrence of each text, compared case- and whitespace-insensitively."""
    seen, out = set(), []
    for d in docs:
        key = " ".join(d.text.lower().split())
        if key and key not in seen:
            seen.add(key)
            out.append(d)
    return out


def is_heldout(text: str, percent: int = HELDOUT_PERCENT) -> bool:
    """Stable split: the first 8 bytes of the text's SHA-256, modulo 100, below `percent`."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") % 100 < percent


def split(docs: list[Document], percent: int = HELDOUT_PERCENT) -> Corpus:
    held = [is_heldout(d.text, percent) for d in docs]
    return Corpus([d for d, h in zip(docs, held) if not h], [d for d, h in zip(docs, held) if h])


def prose_documents(root: Path) -> list[Document]:
    """The longer English sources (Bible chapters, Jargon File entries, handbook paragraphs), cleaned."""
    for source, path in real_text_sources.required_paths(root).items():
        _require(path, source)
    if shutil.which("mod2imp") is None:
        raise MissingPackage("the real-text corpus needs the Debian package 'libsword-utils' (its mod2imp exports "
                             "the World English Bible): run `apt-get install -y libsword-utils`")
    return [Document(clean(text), source, "en") for text, source in real_text_sources.documents(root)]


def assemble(root: Path | str = "/") -> list[Document]:
    """All documents, cleaned and deduplicated, in a fixed order (WordNet, fortune files by name, then the
    Bible, the Jargon File and the handbook)."""
    root = Path(root)
    return dedupe(wordnet_documents(root) + fortune_documents(root) + prose_documents(root))


def _cache_key(root: Path) -> str:
    stamp = [CLEANING_VERSION, str(root)]
    paths = [root / WORDNET_DIR / n for n in WORDNET_FILES] + sorted((root / FORTUNE_DIR).glob("*"))
    for path in paths + real_text_sources.stamp_paths(root):
        if path.exists():
            st = path.stat()
            stamp.append(f"{path.name}:{st.st_size}:{int(st.st_mtime)}")
    return hashlib.sha256(json.dumps(stamp).encode()).hexdigest()[:16]


def cache_dir() -> Path:
    return Path(os.environ.get("ATTENTION_LAB_CACHE") or Path.home() / ".cache" / "attention-lab")


def load(root: Path | str = "/", cache: bool = True) -> Corpus:
    """The split corpus; cached as JSON lines keyed by the source files' sizes and times."""
    root = Path(root)
    path = cache_dir() / f"real_text-{_cache_key(root)}.jsonl"
    if cache and path.exists():
        docs = [Document(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
    else:
        docs = assemble(root)
        if cache:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")            # one per process: two may build it at once
            tmp.write_text("".join(json.dumps(asdict(d), ensure_ascii=False) + "\n" for d in docs), "utf-8")
            tmp.replace(path)
    return split(docs)
