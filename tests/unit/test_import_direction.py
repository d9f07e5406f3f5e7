"""Dependencies point one way: model and viz never load streamlit; viz never loads torch."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _loaded_after_import(packages: list[str]) -> set[str]:
    mods = [p.stem for p in (ROOT / packages[0]).glob("*.py") if p.stem != "__main__"]
    code = ("import importlib, sys\n"
            f"for m in {mods!r}:\n"
            f"    importlib.import_module('{packages[0]}.' + m if m != '__init__' else '{packages[0]}')\n"
            "print(' '.join(sorted({k.split('.')[0] for k in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("package", ["model", "viz"])
def test_package_never_loads_streamlit(package):
    assert "streamlit" not in _loaded_after_import([package])


def test_viz_never_loads_torch():
    loaded = _loaded_after_import(["viz"])
    assert "torch" not in loaded and "plotly" in loaded


def test_model_never_loads_plotting():
    loaded = _loaded_after_import(["model"])
    assert not {"plotly", "altair", "matplotlib"} & loaded
