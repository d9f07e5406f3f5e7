"""Every page names layers and heads one way: "L3 H1", counted from 0 (tests/app/label_rules.py). The pages'
own labels are read on every view by tests/app/test_chinese.py (labels are the same in both languages, so one
render checks both); here, every message of the interface in either language, and the checker itself."""
import glob

from babel.messages.pofile import read_po

from app_pages import _pages
from tests.app.every_view import VIEWS
from tests.app.label_rules import bad_labels, wrong_style


def test_the_checker_flags_other_styles_and_one_based_counts():
    good = ["L0 H3", "Head L3 H1 points it at restaurant", "L2, mean of heads", "H0", "4 layers × 4 heads",
            "注意力头 L3 H1", "{layer0} 中为 {share0}", "所有层和头", "线性层 128 → V"]
    assert bad_labels(good, 4, 4) == []
    for wrong in ("Layer 1, head 3", "layer 4", "head 2", "L1 · H2", "layer2_head1.csv", "L4 H0", "L0 H4",
                  "第 1 层", "第2个头"):
        assert bad_labels([wrong], 4, 4) == [wrong]


def test_no_message_of_either_language_names_a_layer_or_head_another_way():
    found = []
    for path in sorted(glob.glob("locales/*/LC_MESSAGES/*.po")):
        with open(path, "rb") as f:
            for message in read_po(f):
                texts = [t for t in (message.id, message.string) for t in (t if isinstance(t, tuple) else (t,))]
                found += [f"{path}: {s}" for s in wrong_style([t for t in texts if t])]
    assert found == []


def test_every_page_is_covered():
    assert {p.removesuffix(".py") for p, _ in VIEWS} == {p.name for p in _pages.PAGES}
