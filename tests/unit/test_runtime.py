"""The runtime package (runtime/): it patches private internals of one Streamlit release, so it refuses to install
on another with a message naming both versions, before it patches anything; the release pinned in requirements.txt
is the one it accepts; and it imports nothing of the pages or the model."""
import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
import streamlit

import runtime
from runtime import version

ROOT = Path(__file__).resolve().parents[2]


def pinned_streamlit() -> str:
    """The Streamlit version requirements.txt pins (`streamlit==X`)."""
    found = re.search(r"^streamlit==([\w.]+)", (ROOT / "requirements.txt").read_text(), re.M)
    assert found, "requirements.txt pins no Streamlit release"
    return found.group(1)


def test_the_pinned_release_is_the_supported_one_and_installs():
    pinned = pinned_streamlit()
    assert pinned.startswith(version.SUPPORTED + ".")
    assert streamlit.__version__ == pinned             # the environment the tests run in is the pinned one
    version.check()                                    # no refusal (install() patches the process: the app tests)


@pytest.mark.parametrize("other", ["1.68.0", "1.66.1", "2.0.0", "1.6.7"])
def test_another_release_is_refused_with_both_versions_named(monkeypatch, other):
    monkeypatch.setattr(streamlit, "__version__", other)
    with pytest.raises(version.UnsupportedStreamlit) as e:
        runtime.install()
    assert str(e.value) == (
        f"Attention Lab cannot start: its runtime (runtime/) patches private internals of Streamlit 1.67.x, but "
        f"Streamlit {other} is installed. Install the pinned release (pip install -r requirements.txt), or check "
        f"runtime/ against Streamlit {other} and then change runtime/version.py's SUPPORTED.")


def test_a_patch_release_of_the_supported_one_installs(monkeypatch):
    monkeypatch.setattr(streamlit, "__version__", version.SUPPORTED + ".9")
    version.check()


def test_the_refusal_comes_before_any_patch():
    code = ("import sys, streamlit\n"
            "from streamlit.runtime.app_session import AppSession\n"
            "from streamlit.runtime.state.session_state import SessionState\n"
            "before = (AppSession._handle_clear_cache_request, SessionState.set_widgets_from_proto)\n"
            "streamlit.__version__ = '1.99.0'\n"
            "import runtime\n"
            "try:\n"
            "    runtime.install()\n"
            "except runtime.version.UnsupportedStreamlit:\n"
            "    print('refused')\n"
            "print((AppSession._handle_clear_cache_request, SessionState.set_widgets_from_proto) == before)\n"
            "print(sorted(m for m in sys.modules if m.startswith('runtime.')))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:3] == ["refused", "True", "['runtime.version']"]


def imported_packages(path: Path) -> set[str]:
    """The top-level package names a file imports (module level or inside functions)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
    return found


def test_runtime_imports_neither_the_pages_nor_the_model():
    files = sorted((ROOT / "runtime").glob("*.py"))
    assert {"job_queue.py", "input_checks.py", "first_view.py"} <= {p.name for p in files}
    assert {p.name: sorted(imported_packages(p) & {"app_pages", "model", "viz", "torch"}) for p in files} == {
        p.name: [] for p in files}
