"""The house's size rules, read from the source itself: no Python file of the project over 330 lines (tests
included) and no function of the app, its models, figures, runtime, servers or benchmarks over 60 lines, so a page
or a model reads in one sitting (docs/architecture.md)."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_FILE_LINES, MAX_FUNCTION_LINES = 330, 60


def python_files(skip_tests: bool = False) -> list[Path]:
    out = []
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).parts
        if parts[0].startswith(".") or "venv" in parts[0] or (skip_tests and parts[0] == "tests"):
            continue
        out.append(path)
    return out


def long_functions(source: str, limit: int) -> list[tuple[str, int]]:
    """(name, lines) of every function or method of source longer than limit lines, decorators excluded."""
    return [(n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(ast.parse(source))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > limit]


def test_the_rule_finds_a_long_function_and_passes_a_short_one():
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    assert long_functions(f"def long():\n{body}\n", 60) == [("long", 62)]
    assert long_functions("def short():\n    return 1\n", 60) == []


def test_no_file_is_over_330_lines():
    files = python_files()
    assert len(files) > 500                                       # the whole project was read
    long = {str(p.relative_to(ROOT)): n for p in files if (n := len(p.read_text().splitlines())) > MAX_FILE_LINES}
    assert long == {}


def test_no_function_outside_the_tests_is_over_60_lines():
    found = {f"{p.relative_to(ROOT)}:{name}": n for p in python_files(skip_tests=True)
             for name, n in long_functions(p.read_text(), MAX_FUNCTION_LINES)}
    assert found == {}
