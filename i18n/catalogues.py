"""The message catalogues kept in step with the source by Babel's pybabel, its options in one place.

    python -m i18n.catalogues update     # extract, then merge into each language's messages.po, then compile
    python -m i18n.catalogues compile    # after translating: each messages.po -> messages.mo, what the app reads
    python -m i18n.catalogues missing    # messages with no translation yet (or only a fuzzy one); exit 1 if any
    python -m i18n.catalogues extract    # only the template, locales/messages.pot

One gettext domain, "messages": locales/messages.pot (the template) and locales/<lang>/LC_MESSAGES/messages.po
(the translations; a message gone from the source is dropped, a new one comes in empty). What is extracted is
babel.cfg's: the app's Python packages (_ and N_ calls) and the lecture plan (i18n.extractors). The compiled .mo
files are committed, and tests/unit/test_catalogues.py checks each is the compile of its .po. A new language:
`pybabel init -i locales/messages.pot -d locales -l <code>`, then an entry in i18n.LANGUAGES."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from i18n import DEFAULT, DOMAIN, LOCALES

ROOT = LOCALES.parent
WIDTH = "120"                      # the source's line length, so a message wraps as little in the catalogues
EXTRACT = ["extract", "-F", "babel.cfg", "-k", "N_", "--project", "Attention Lab", "-w", WIDTH]
UPDATE = ["update", "-D", DOMAIN, "--no-fuzzy-matching", "--ignore-obsolete", "--ignore-pot-creation-date",
          "-w", WIDTH]


def pybabel(*args: str, root: Path = ROOT, strict: bool = True):
    """Run `pybabel args…` in `root` (babel.cfg's paths and the catalogues' locations start there), with this
    project importable for babel.cfg's own extractors; raises CalledProcessError where pybabel fails. strict=False:
    the complaints of compile's checks are printed but not counted as a failure (pybabel's exit status counts them)."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    run = "from babel.messages.frontend import main; " + ("raise SystemExit(main())" if strict else "main()")
    subprocess.run([sys.executable, "-c", run, "-q", *args], cwd=root, check=True,
                   env={**os.environ, "PYTHONPATH": path})


def extract(root: Path = ROOT, output: Path | None = None):
    """The source's messages -> a template (default: locales/messages.pot)."""
    pybabel(*EXTRACT, "-o", str(output or root / "locales" / f"{DOMAIN}.pot"), ".", root=root)


def template(root: Path = ROOT) -> Catalog:
    """The messages the source holds now, freshly extracted (the committed template may lag behind)."""
    with tempfile.TemporaryDirectory() as tmp:
        pot = Path(tmp) / f"{DOMAIN}.pot"
        extract(root, pot)
        with pot.open("rb") as f:
            return read_po(f)


def read(code: str, root: Path = ROOT) -> Catalog | None:
    """A language's catalogue (messages.po), or None where it has none."""
    path = root / "locales" / code / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not path.is_file():
        return None
    with path.open("rb") as f:
        return read_po(f, locale=code, domain=DOMAIN)


def compile_mo(root: Path = ROOT):
    """Each language's messages.po -> messages.mo; fuzzy entries are left out. pybabel's %-format check prints its
    complaints (it reads "95% interval" as a %i placeholder) without failing the command: the messages are filled
    with {} and str.format, whose placeholders tests/unit/test_catalogues.py checks."""
    pybabel("compile", "-D", DOMAIN, "-d", "locales", root=root, strict=False)


def update(root: Path = ROOT):
    """Extract the template, bring every language's catalogue in line with it (Babel keeps the translations of
    messages still in the source), and compile."""
    extract(root)
    pybabel(*UPDATE, "-i", str(Path("locales") / f"{DOMAIN}.pot"), "-d", "locales", root=root)
    compile_mo(root)


def missing(code: str = "zh", root: Path = ROOT) -> list[tuple[str, str]]:
    """(where, message) for each message of the source with no translation in `code`, or only a fuzzy one;
    where is the first place the source uses it ("app_pages/_pages.py:12"), message a plural's singular."""
    if code == DEFAULT:
        return []
    catalog = read(code, root)
    out = []
    for message in template(root):
        if not message.id:
            continue
        have = catalog.get(message.id) if catalog else None
        strings = have.string if have else None
        done = have is not None and not have.fuzzy and all(strings if isinstance(strings, tuple) else [strings])
        if not done:
            where = ":".join(map(str, message.locations[0])) if message.locations else ""
            out.append((where, message.id if isinstance(message.id, str) else message.id[0]))
    return out


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "missing"
    if command == "update":
        update()
    elif command == "compile":
        compile_mo()
    elif command == "extract":
        extract()
    elif command == "missing":
        gaps = missing(sys.argv[2] if len(sys.argv) > 2 else "zh")
        for where, message in gaps:
            print(f"{where}: {message}")
        print(f"{len(gaps)} message(s) without a translation", file=sys.stderr)
        sys.exit(1 if gaps else 0)
    else:
        sys.exit(__doc__)
