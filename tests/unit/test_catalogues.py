"""The message catalogues (i18n/): every string marked for translation has a checked Chinese translation, the
translation keeps the message's {placeholders} (a missing one would raise at .format, an extra one shows braces),
one message reads the same wherever it is used, its **bold** renders (CommonMark, as Streamlit's Markdown reads it:
"**答对了：**狗" stays literal, since a closing ** after a full-width colon needs a space or punctuation next), and
the language switch really changes what _ returns."""
import json
import re

import pytest
from markdown_it import MarkdownIt

import i18n
from i18n import catalogues

PLACEHOLDER = re.compile(r"\{[^{}]*\}")


@pytest.fixture(scope="module")
def zh():
    return {domain: catalogues.read("zh", domain) for domain in catalogues.templates()}


def test_every_marked_string_has_a_translation():
    assert catalogues.missing("zh") == []


def test_translations_keep_the_placeholders(zh):
    bad = []
    for domain, catalog in zh.items():
        for m in catalog:
            if not m.id:
                continue
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            want = sorted(PLACEHOLDER.findall(ids[-1]))
            bad += [(domain, ids[0], s) for s in strings if sorted(PLACEHOLDER.findall(s)) != want]
    assert bad == []


def test_one_message_one_translation(zh):
    seen: dict[str, set[str]] = {}
    for catalog in zh.values():
        for m in catalog:
            if m.id and isinstance(m.id, str):
                seen.setdefault(m.id, set()).add(m.string)
    assert {k: v for k, v in seen.items() if len(v) > 1} == {}


def unrendered_bold(text: str) -> bool:
    """Whether CommonMark leaves a ** of `text` as literal asterisks, its {placeholders} filled with a word."""
    return "**" in MarkdownIt("commonmark").render(PLACEHOLDER.sub("x", text))


def test_bold_renders_in_every_message_of_both_languages(zh):
    assert unrendered_bold("**答对了：**{truth}。") and not unrendered_bold("**答对了**：{truth}。")
    bad = []
    for domain, catalog in zh.items():
        for m in catalog:
            texts = [*(m.id if isinstance(m.id, tuple) else (m.id,)),
                     *(m.string if isinstance(m.string, tuple) else (m.string,))]
            bad += [f"{domain}: {t}" for t in texts if t and "**" in t and unrendered_bold(t)]
    assert bad == []


def test_the_checker_sees_an_untranslated_string(tmp_path, monkeypatch):
    source = tmp_path / "app_pages" / "page.py"
    source.parent.mkdir()
    source.write_text('from i18n import _\nTITLE = _("A title no catalogue has")\n')
    monkeypatch.setattr(catalogues, "ROOT", tmp_path)
    monkeypatch.setattr(catalogues, "SOURCES", ["app_pages"])
    monkeypatch.setattr(catalogues, "LOCALES", tmp_path / "locales")
    assert catalogues.missing("zh") == [("app_pages.page", "A title no catalogue has")]


def test_the_lecture_plan_is_extracted_view_by_view_with_views_added_later(tmp_path, monkeypatch):
    plan = {"format": "attention-lab-lecture", "version": 1, "views": [
        {"section": "Tutorial part 9", "title": "A title", "page": "explorer", "params": {}, "note": "A note."},
        {"section": "Tutorial part 9", "title": "Another title", "page": "masks", "params": {"masks_tab": "Cost"},
         "note": ""}]}
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "lecture_plan.json").write_text(json.dumps(plan, ensure_ascii=False, indent=1))
    monkeypatch.setattr(catalogues, "ROOT", tmp_path)
    monkeypatch.setattr(catalogues, "SOURCES", ["assets/lecture_plan.json"])
    monkeypatch.setattr(catalogues, "LOCALES", tmp_path / "locales")
    domain = "assets.lecture_plan"                     # each section once, no empty note
    assert catalogues.missing("zh") == [(domain, "Tutorial part 9"), (domain, "A title"), (domain, "A note."),
                                        (domain, "Another title")]
    lines = (tmp_path / "assets" / "lecture_plan.json").read_text().splitlines()
    located = {m.id: m.locations[0][1] for m in catalogues.templates()[domain] if m.id}
    assert all(f'"title": "{t}"' in lines[located[t] - 1] for t in ("A title", "Another title"))


def test_switching_the_language_changes_the_text():
    i18n.set_language("zh")
    try:
        assert i18n._("Home") == "首页"
        assert i18n._("A sentence no catalogue has") == "A sentence no catalogue has"
    finally:
        i18n.set_language("en")
    assert i18n._("Home") == "Home"


def test_a_label_that_renders_several_messages_is_relabelled_to_the_one_the_widget_shows():
    """束搜索 translates both "Beam search" (a tab) and "beam search" (a decoding): read in English, a link's 束搜索
    becomes the one among the widget's labels; a label in the current language, or no label at all, stays."""
    assert i18n.relabel("束搜索", among=["greedy", "beam search"]) == "beam search"
    assert i18n.relabel("束搜索", among=["Next token", "Beam search"]) == "Beam search"
    assert i18n.relabel("beam search", among=["greedy", "beam search"]) == "beam search"
    assert i18n.relabel("not a label anywhere", among=["greedy"]) == "not a label anywhere"
    i18n.set_language("zh")
    try:
        assert i18n.relabel("beam search", among=["贪心", "束搜索"]) == "束搜索"
    finally:
        i18n.set_language("en")
