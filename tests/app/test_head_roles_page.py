"""The explorer shows a shipped model's head roles measured on held-out text (assets/head_roles/<model>.json, made
by `python -m model.head_roles`) under the zoomed head, with their evidence and rule, and in the grid's hover."""
import json

import pytest

from model import checkpoints
from tests.app.conftest import open_link
from tests.app.conftest import plotly_chart as chart

FILE = checkpoints.ASSETS / "head_roles" / "minilm.json"


@pytest.mark.skipif(not FILE.is_file() or "minilm" not in checkpoints.shipped(), reason="minilm or its roles absent")
def test_the_explorer_shows_the_measured_roles_of_a_minilm_head():
    data = json.loads(FILE.read_text())
    head = next(h for h, v in data["heads"].items() if "previous-token" in v["roles"])     # L0 H2 when measured
    share = data["heads"][head]["scores"]["previous"]
    layer, h = head.split()
    at = open_link("explorer.py", text_model="minilm", explorer_layer=layer, explorer_head=h)
    assert any(s.value == head for s in at.subheader)
    line = next(m.value for m in at.markdown if m.value.startswith("**Measured on"))
    assert line.startswith(f"**Measured on {data['passages']} held-out passages of real text:** ")
    assert f"previous-token ({share:.0%} of its attention on the previous token; rule ≥ 50%)" in line
    hover = [t for trace in chart(at, "explorer_grid")["data"] for t in trace.get("text") or [] if isinstance(t, str)]
    assert any(t.startswith(head + "<br>") and "measured: previous-token" in t for t in hover), hover[:3]
