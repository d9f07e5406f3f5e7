"""No module of the project hides one of the standard library: no `X.py` and no package `X/__init__.py` named
after a standard module, anywhere in the tree. A folder without __init__.py (a namespace package, such as
model/tokenize/ that only holds the `python -m model.tokenize` command) is exempt by rule, not by name: Python
finds it only when no regular module of that name exists on sys.path, so it can never stand in for one."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {".git", ".venv", "venv", "assets", "node_modules"}


def _importable_names() -> dict[str, str]:
    """name -> path of every module file and regular package in the tree (hidden and data folders skipped)."""
    found = {}
    for p in ROOT.rglob("*.py"):
        rel = p.relative_to(ROOT)
        if SKIPPED & set(rel.parts) or any(part.startswith(".") for part in rel.parts):
            continue
        if p.stem not in ("__init__", "__main__"):
            found.setdefault(p.stem, str(rel))
        elif p.stem == "__init__":
            found.setdefault(p.parent.name, str(rel))
    return found


def test_the_scan_sees_modules_and_packages():
    names = _importable_names()
    assert names["tokens"] == "model/tokens.py" and names["engine"] == "model/engine/__init__.py"


def test_no_module_or_package_is_named_after_the_standard_library():
    names = _importable_names()
    assert {n: p for n, p in names.items() if n in sys.stdlib_module_names} == {}


def test_the_tokenize_command_leaves_the_standard_tokenize_in_place():
    """Even with model/ first on sys.path (a script run from there), `import tokenize` is the standard one."""
    code = "import sys, tokenize; print(tokenize.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "model", capture_output=True, text=True,
                         check=True).stdout.strip()
    assert Path(out).parent == Path(subprocess.run(
        [sys.executable, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
        capture_output=True, text=True, check=True).stdout.strip())
