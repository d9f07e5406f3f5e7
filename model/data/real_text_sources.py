"""Longer real English text for the corpus, from three Debian packages nobody here wrote (docs/data-card.md):

    bible     the World English Bible (`sword-text-web`, public domain), exported with `mod2imp` from
              `libsword-utils`; one document per chapter, footnotes and headings left out
    jargon    the Jargon File 4.4.7 (`jargon-text`, public domain); one document per entry
    handbook  The Debian Administrator's Handbook, English edition (`debian-handbook`, GPL-2+ or CC-BY-SA-3.0);
              paragraphs grouped into documents of about HANDBOOK_WORDS words within a page

Each reader returns (text, source) pairs of raw text; model/data/real_text.py cleans, deduplicates and splits them."""
import gzip
import html
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

BIBLE_MODULE = "engWEB2015eb"
BIBLE_CONF = "usr/share/sword/mods.d/engWEB2015eb.conf"
JARGON_FILE = "usr/share/doc/jargon-text/jargon.txt.gz"
HANDBOOK_DIR = "usr/share/doc/debian-handbook/html/en-US"
HANDBOOK_WORDS = 200        # a handbook document: consecutive paragraphs of one page up to about this many words
SOURCES = {"bible": "sword-text-web", "jargon": "jargon-text", "handbook": "debian-handbook"}   # source -> package

_VERSE = re.compile(r"^\$\$\$(.+) (\d+):(\d+)$")
_DROPPED = re.compile(r"<note\b.*?</note>|<title\b.*?</title>|<speaker\b.*?</speaker>|<rdg\b.*?</rdg>", re.S)
_TAG = re.compile(r"<[^>]+>")
_JARGON_ENTRY = re.compile(r"^ {3}:([^:]+):(.*)$")
_CROSS_REF = re.compile(r"\{([^{}]*)\}")
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})


def plain_quotes(text: str) -> str:
    """Typographic quotes as the ASCII ones the rest of the corpus uses (God’s -> God's), so both spell one id."""
    return text.translate(_QUOTES)


def bible_chapters(imp_text: str) -> list[str]:
    """Chapters (verse 1 onwards) of a SWORD module exported by mod2imp, as plain text: OSIS markup,
    footnotes, headings and variant readings removed; chapter 0 (introductions) left out."""
    chapters: dict[tuple[str, int], list[str]] = {}
    key = None
    for line in imp_text.splitlines():
        verse = _VERSE.match(line)
        if verse:
            book, chapter = verse.group(1), int(verse.group(2))
            key = (book, chapter) if chapter > 0 and int(verse.group(3)) > 0 else None
        elif line.startswith("$$$"):
            key = None
        elif key is not None:
            text = html.unescape(_TAG.sub(" ", _DROPPED.sub(" ", line)))
            chapters.setdefault(key, []).append(text)
    out = []
    for verses in chapters.values():
        text = re.sub(r"\s+", " ", " ".join(verses))
        text = re.sub(r"([“‘(]) ", r"\1", re.sub(r" ([,.;:!?’”)])", r"\1", text))
        out.append(plain_quotes(text).strip())
    return out


def export_bible(root: Path) -> str:
    """The World English Bible as mod2imp writes it ('$$$Book chapter:verse' lines, each followed by OSIS)."""
    exported = subprocess.run(["mod2imp", BIBLE_MODULE], capture_output=True, check=True,
                              env={"SWORD_PATH": str(root / "usr/share/sword"), "PATH": "/usr/bin:/bin"})
    return exported.stdout.decode("utf-8", errors="replace")


def bible_documents(root: Path) -> list[tuple[str, str]]:
    """The World English Bible, one document per chapter; needs `mod2imp` (libsword-utils) on the PATH."""
    return [(t, "bible") for t in bible_chapters(export_bible(root)) if t]


def jargon_entries(text: str) -> list[str]:
    """The glossary entries of the Jargon File's plain-text edition: ':term: part of speech' then its paragraphs,
    written as 'term: definition'; pronunciation keys dropped, '{cross reference}' braces removed."""
    entries, head, body = [], None, []

    def close():
        if head and body:
            entries.append(f"{head}: " + " ".join(body))

    for line in text.splitlines():
        entry = _JARGON_ENTRY.match(line)
        if entry:
            close()
            head, body = entry.group(1).strip(), []
        elif head is not None and line.strip():
            body.append(_CROSS_REF.sub(r"\1", line.strip()))
    close()
    return [re.sub(r"\s+", " ", e) for e in entries]


def jargon_documents(root: Path) -> list[tuple[str, str]]:
    text = gzip.decompress((root / JARGON_FILE).read_bytes()).decode("utf-8", "replace")
    return [(plain_quotes(t), "jargon") for t in jargon_entries(text)]


class _Paragraphs(HTMLParser):
    """The text of every <div class="para"> of a DocBook HTML page, program listings left out."""

    def __init__(self):
        super().__init__()
        self.paragraphs, self._depth, self._skip, self._parts = [], 0, 0, []

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if tag == "pre" or "programlisting" in cls or "screen" in cls:
            self._skip += 1
        if tag == "div":
            if self._depth:
                self._depth += 1
            elif cls == "para":
                self._depth, self._parts = 1, []

    def handle_endtag(self, tag):
        if tag == "pre" and self._skip:
            self._skip -= 1
        if tag == "div" and self._depth:
            self._depth -= 1
            if not self._depth:
                self.paragraphs.append(re.sub(r"\s+", " ", "".join(self._parts)).strip())

    def handle_data(self, data):
        if self._depth and not self._skip:
            self._parts.append(data)


def handbook_documents(root: Path) -> list[tuple[str, str]]:
    """The English Debian Administrator's Handbook: paragraphs of each page grouped into documents."""
    docs = []
    for page in sorted((root / HANDBOOK_DIR).glob("*.html")):
        parser = _Paragraphs()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        group: list[str] = []
        for para in [p for p in parser.paragraphs if len(p.split()) >= 5]:
            group.append(para)
            if sum(len(p.split()) for p in group) >= HANDBOOK_WORDS:
                docs.append((plain_quotes("\n".join(group)), "handbook"))
                group = []
        if group:
            docs.append((plain_quotes("\n".join(group)), "handbook"))
    return docs


def required_paths(root: Path) -> dict[str, Path]:
    """source -> the file or folder whose absence means its package is not installed."""
    return {"bible": root / BIBLE_CONF, "jargon": root / JARGON_FILE, "handbook": root / HANDBOOK_DIR}


def stamp_paths(root: Path) -> list[Path]:
    """The files whose sizes and times key the corpus cache."""
    return [root / BIBLE_CONF, root / JARGON_FILE, *sorted((root / HANDBOOK_DIR).glob("*.html"))]


def documents(root: Path) -> list[tuple[str, str]]:
    """Every extra source's documents, in a fixed order."""
    return bible_documents(root) + jargon_documents(root) + handbook_documents(root)
