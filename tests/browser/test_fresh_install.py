"""The README's first command on a fresh machine: a new virtualenv filled by exactly that command's install steps
(read from the README, tests/readme.py) runs the README's own start command (`streamlit run app_warmed.py`), and
every page of the navigation renders in English and in Chinese with no exception, in a real browser. Nothing
installed anywhere else can help it: the virtualenv sees only what those steps installed."""
import os
import subprocess
import sys
import venv

import pytest

from harness.server import ROOT, streamlit_server
from tests import readme
from tests.browser.conftest import wait_for_app


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory):
    """The interpreter of a new virtualenv (no system site-packages) after the README's first install steps."""
    where = tmp_path_factory.mktemp("fresh") / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(where)
    install = readme.part("app", "install")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = f"{where / 'bin'}{os.pathsep}{env['PATH']}"
    done = subprocess.run(["bash", "-c", install], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"`{install}` failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return where / "bin" / "python"


def test_the_fresh_virtualenv_sees_only_what_the_readme_installed(fresh_python):
    seen = subprocess.run([str(fresh_python), "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True)
    assert seen.stdout.strip() == str(fresh_python.parent.parent)
    found = subprocess.run([str(fresh_python), "-c", "import pytest"], capture_output=True, text=True)
    assert found.returncode != 0, "pytest (a dev requirement) leaked into the runtime virtualenv"
    assert sys.prefix != str(fresh_python.parent.parent)


def test_every_page_renders_in_english_and_chinese(fresh_python, browser, tmp_path):
    script = readme.part("app", "run").split()[-1]                     # streamlit run <script>, as the README says
    with streamlit_server(tmp_path / "fresh.log", script=script, python=fresh_python) as url:
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        wait_for_app(page, timeout=120_000)
        nav = page.locator('[data-testid="stSidebarNav"] a')
        nav.first.wait_for(timeout=60_000)
        paths = [h.rstrip("/").rsplit("/", 1)[-1] if h.rstrip("/") != url else "" for h in
                 (a.get_attribute("href") for a in nav.all())]
        assert len(paths) >= 15 and "explorer" in paths, paths
        broken = []
        for path in paths:
            for query in ("", "?lang=zh"):
                page.goto(f"{url}/{path}{query}")
                wait_for_app(page, timeout=120_000)
                page.locator('[data-testid="stMain"] h1').first.wait_for(timeout=60_000)
                if page.locator('[data-testid="stException"]').count():
                    broken.append(f"/{path}{query}: {page.locator('[data-testid=stException]').first.inner_text()}")
        page.goto(f"{url}/explorer?text_model=minilm")          # the pretrained model's package came with it
        wait_for_app(page, timeout=120_000)
        page.get_by_text("model minilm, 6 layers × 12 heads").first.wait_for(timeout=120_000)
        ctx.close()
        assert not broken, "\n".join(broken)
        assert not errors, errors
