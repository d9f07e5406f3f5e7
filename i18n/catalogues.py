"""Keep the message catalogues in step with the source, with Babel's own extractor and updater.

    python -m i18n.catalogues update     # add new messages (empty) to each file's catalogue, drop gone ones
    python -m i18n.catalogues missing    # list messages with no translation yet; exit 1 if any

One catalogue (gettext domain) per source file that has messages, named after its module
(app_pages/views/masks.py -> locales/zh/LC_MESSAGES/app_pages.views.masks.po), so each file's strings and
their translations sit side by side. Data files the app shows text from have their own extractor (METHODS): the
lecture plan's sections, titles and notes (assets/lecture_plan.json -> assets.lecture_plan.po)."""
import json
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from babel.messages.pofile import read_po, write_po

from i18n import DEFAULT, LANGUAGES, LOCALES

ROOT = LOCALES.parent
SOURCES = ["app.py", "app_pages", "viz", "model", "i18n", "assets/lecture_plan.json"]
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None}
PLAYLIST_FIELDS = ("section", "title", "note")      # what the lecture page shows of each view


def domain_of(path: Path) -> str:
    """app_pages/views/masks.py -> "app_pages.views.masks"; assets/lecture_plan.json -> "assets.lecture_plan"."""
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def extract_playlist(fileobj, keywords, comment_tags, options):
    """Babel extractor for a playlist file (the lecture plan, app_pages/_playlist.py's format): each view's
    section, title and note, with the line that holds it and a comment naming the view and the field."""
    text = fileobj.read().decode(options.get("encoding", "utf-8"))
    lines, at = text.splitlines(), 0
    for i, view in enumerate(json.loads(text).get("views", []), 1):
        for field in PLAYLIST_FIELDS:
            value = view.get(field) if isinstance(view, dict) else None
            if not isinstance(value, str) or not value.strip():
                continue
            quoted = f'"{field}": {json.dumps(value, ensure_ascii=False)}'
            at = next((n for n in range(at, len(lines)) if quoted in lines[n]), at)   # as json.dump wrote it
            yield at + 1, None, value, [f"view {i}: {field}"]


METHODS = {".py": "python", ".json": extract_playlist}    # by suffix; a .json source is a playlist file


def source_files() -> list[Path]:
    files = []
    for name in SOURCES:
        p = ROOT / name
        files += [p] if p.is_file() else sorted(p.rglob("*.py"))
    return files


def extract(path: Path) -> list[tuple[str | tuple[str, str], int]]:
    """(message, line) for each translatable string in one file; a plural is a (singular, plural) pair."""
    return [(m, line) for line, m, _comments, _context in
            extract_from_file(METHODS[path.suffix], str(path), keywords=KEYWORDS, options={"encoding": "utf-8"})]


def templates() -> dict[str, Catalog]:
    """domain -> a template catalogue of that file's messages (files without any are left out)."""
    out = {}
    for path in source_files():
        messages = extract(path)
        if not messages:
            continue
        template = Catalog(domain=domain_of(path))
        for message, line in messages:
            template.add(message, locations=[(str(path.relative_to(ROOT)), line)])
        out[domain_of(path)] = template
    return out


def po_path(code: str, domain: str) -> Path:
    return LOCALES / code / "LC_MESSAGES" / f"{domain}.po"


def read(code: str, domain: str) -> Catalog | None:
    path = po_path(code, domain)
    if not path.is_file():
        return None
    with path.open("rb") as f:
        return read_po(f, locale=code, domain=domain)


def update():
    """Bring every language's catalogues in line with the source (Babel's Catalog.update keeps translations)."""
    for code in LANGUAGES:
        if code == DEFAULT:
            continue
        wanted = templates()
        for domain, template in wanted.items():
            catalog = read(code, domain) or Catalog(locale=code, domain=domain)
            catalog.update(template, no_fuzzy_matching=True)
            catalog.obsolete.clear()
            path = po_path(code, domain)
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as f:
                write_po(f, catalog, width=120, omit_header=False, sort_output=False, include_previous=False)
        for stale in (LOCALES / code / "LC_MESSAGES").glob("*.po"):
            if stale.stem not in wanted:
                stale.unlink()


def missing(code: str = "zh") -> list[tuple[str, str]]:
    """(domain, message) for each source message with no (or only a fuzzy) translation in `code`."""
    out = []
    for domain, template in templates().items():
        catalog = read(code, domain)
        for message in template:
            if not message.id:
                continue
            have = catalog.get(message.id) if catalog else None
            strings = have.string if have else None
            done = have is not None and not have.fuzzy and all(strings if isinstance(strings, tuple) else [strings])
            if not done:
                out.append((domain, message.id if isinstance(message.id, str) else message.id[0]))
    return out


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "missing"
    if command == "update":
        update()
    elif command == "missing":
        gaps = missing(sys.argv[2] if len(sys.argv) > 2 else "zh")
        for domain, message in gaps:
            print(f"{domain}: {message}")
        print(f"{len(gaps)} message(s) without a translation", file=sys.stderr)
        sys.exit(1 if gaps else 0)
    else:
        sys.exit(__doc__)
