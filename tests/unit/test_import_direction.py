"""Dependencies point one way: model and viz never load streamlit; viz never loads torch; inside model,
each subpackage imports only those before it (engine → data → architectures → tasks → analysis → training)."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["engine", "data", "architectures", "tasks", "analysis", "training"]


def _modules(package: str) -> list[str]:
    """Dotted names of every module under package/, subpackages included."""
    out = []
    for p in sorted((ROOT / package).rglob("*.py")):
        if p.stem == "__main__":
            continue
        parts = p.relative_to(ROOT).with_suffix("").parts
        out.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return out


def _loaded_after_import(package: str) -> set[str]:
    code = ("import importlib, sys\n"
            f"for m in {_modules(package)!r}:\n"
            "    importlib.import_module(m)\n"
            "print(' '.join(sorted({k.split('.')[0] for k in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def _model_imports(path: Path) -> set[str]:
    """The model subpackages a file imports (absolute `model.<sub>` imports; relative ones stay inside)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + ([f"{node.module}.{a.name}" for a in node.names] if node.module == "model" else [])
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found |= {n.split(".")[1] for n in names if n.startswith("model.") and len(n.split(".")) > 1}
    return found


def test_module_listing_reaches_into_subpackages():
    mods = _modules("model")
    assert "model.engine.attention" in mods and "model.training.recipes.coref_encoder" in mods


@pytest.mark.parametrize("package", ["model", "viz"])
def test_package_never_loads_streamlit(package):
    assert "streamlit" not in _loaded_after_import(package)


def test_viz_never_loads_torch():
    loaded = _loaded_after_import("viz")
    assert "torch" not in loaded and "plotly" in loaded


def test_model_never_loads_plotting():
    loaded = _loaded_after_import("model")
    assert not {"plotly", "altair", "matplotlib"} & loaded


@pytest.mark.parametrize("layer", LAYERS)
def test_each_model_subpackage_imports_only_the_ones_before_it(layer):
    allowed = set(LAYERS[:LAYERS.index(layer) + 1])
    wrong = {str(p.relative_to(ROOT)): sorted(_model_imports(p) & set(LAYERS) - allowed)
             for p in (ROOT / "model" / layer).rglob("*.py")}
    assert not {k: v for k, v in wrong.items() if v}


def test_no_module_is_named_after_the_standard_library():
    names = {p.stem for p in (ROOT / "model").rglob("*.py")} | {p.stem for p in (ROOT / "viz").rglob("*.py")}
    contract = {"tokenize"}      # `python -m model.tokenize` is a command other checks call by that name
    assert not names & set(sys.stdlib_module_names) - contract
