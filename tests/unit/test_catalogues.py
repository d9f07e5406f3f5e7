"""The message catalogues (i18n/, locales/): one gettext domain kept by Babel's extract/update/compile. Every string
the source marks is in the template and has a checked Chinese translation; the translation keeps the message's
{placeholders} (a missing one would raise at .format, an extra one shows braces) and its **bold** renders
(CommonMark, as Streamlit's Markdown reads it: "**答对了：**狗" stays literal, since a closing ** after a full-width
colon needs a space or punctuation next); the committed .mo holds exactly the .po's checked translations; the
commands keep translations, bring new messages in empty and leave fuzzy ones out; and the language switch really
changes what _ returns."""
import gettext
import json
import re
import shutil

import pytest
from babel.messages.pofile import read_po
from markdown_it import MarkdownIt

import i18n
from i18n import catalogues

PLACEHOLDER = re.compile(r"\{[^{}]*\}")
ROOT = catalogues.ROOT
LOCALES = ROOT / "locales"
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]
HEADER = 'msgid ""\nmsgstr ""\n"Language: zh\\n"\n"Plural-Forms: nplurals=1; plural=0;\\n"\n' \
         '"Content-Type: text/plain; charset=utf-8\\n"\n\n'


@pytest.fixture(scope="module")
def zh():
    return catalogues.read("zh")


def ids(catalog) -> set[str]:
    """The messages of a catalogue, a plural by its singular."""
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}


def compiled(path) -> gettext.GNUTranslations:
    with path.open("rb") as f:
        return gettext.GNUTranslations(f)


def project(tmp_path, files: dict[str, str]):
    """A source tree under tmp_path with the project's babel.cfg and the given files."""
    shutil.copy(ROOT / "babel.cfg", tmp_path / "babel.cfg")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_one_domain_per_language_and_a_catalogue_for_each_translated_language():
    files = sorted(str(p.relative_to(LOCALES)) for p in LOCALES.rglob("*") if p.is_file())
    assert files == ["messages.pot", *(f"{code}/LC_MESSAGES/messages.{ext}" for code in TRANSLATED
                                       for ext in ("mo", "po"))]


def test_every_marked_string_has_a_translation():
    assert catalogues.missing("zh") == []


def test_the_template_and_the_catalogues_hold_the_messages_the_source_marks():
    want = ids(catalogues.template())
    with (LOCALES / "messages.pot").open("rb") as f:
        assert ids(read_po(f)) == want, "run `python -m i18n.catalogues update`"
    for code in TRANSLATED:
        assert ids(catalogues.read(code)) == want, "run `python -m i18n.catalogues update`"


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_compiled_catalogue_holds_exactly_the_checked_translations_of_its_po(code):
    """What the app reads (messages.mo) against the .po, read by the standard library: a message edited in the .po
    and not compiled, or a fuzzy one compiled, fails here."""
    want = {}
    for m in catalogues.read(code):
        if not m.id or m.fuzzy:
            continue
        if isinstance(m.id, str):
            want.update({m.id: m.string} if m.string else {})
        elif all(m.string):
            want.update({(m.id[0], i): s for i, s in enumerate(m.string)})
    mo = compiled(LOCALES / code / "LC_MESSAGES" / "messages.mo")
    assert {k: v for k, v in mo._catalog.items() if k != ""} == want, "run `python -m i18n.catalogues compile`"
    assert mo.info()["plural-forms"] == "nplurals=1; plural=0;"          # Chinese has one form


def test_update_keeps_translations_brings_new_messages_in_empty_and_drops_gone_ones(tmp_path):
    root = project(tmp_path, {
        "app_pages/page.py": 'from i18n import N_, _\nTITLE = _("Layer")\nTABS = [N_("A new tab")]\n',
        "locales/zh/LC_MESSAGES/messages.po": HEADER + 'msgid "Layer"\nmsgstr "层"\n\n'
                                              'msgid "A message the source no longer has"\nmsgstr "旧的"\n'})
    catalogues.update(root)
    po = catalogues.read("zh", root)
    assert {m.id: m.string for m in po if m.id} == {"Layer": "层", "A new tab": ""}
    assert po.get("Layer").locations == [("app_pages/page.py", 2)]
    assert catalogues.missing("zh", root) == [("app_pages/page.py:3", "A new tab")]
    mo = compiled(root / "locales" / "zh" / "LC_MESSAGES" / "messages.mo")
    assert mo.gettext("Layer") == "层" and mo.gettext("A new tab") == "A new tab"
    with (root / "locales" / "messages.pot").open("rb") as f:
        assert ids(read_po(f)) == {"Layer", "A new tab"}


def test_compiling_leaves_fuzzy_translations_out(tmp_path):
    root = project(tmp_path, {"locales/zh/LC_MESSAGES/messages.po": HEADER + 'msgid "Checked"\nmsgstr "已检查"\n\n'
                                                                   '#, fuzzy\nmsgid "Unchecked"\nmsgstr "未检查"\n'})
    catalogues.compile_mo(root)
    mo = compiled(root / "locales" / "zh" / "LC_MESSAGES" / "messages.mo")
    assert (mo.gettext("Checked"), mo.gettext("Unchecked")) == ("已检查", "Unchecked")


def test_the_checker_sees_an_untranslated_string(tmp_path):
    root = project(tmp_path, {"app_pages/page.py": 'from i18n import _\nTITLE = _("A title no catalogue has")\n'})
    assert catalogues.missing("zh", root) == [("app_pages/page.py:2", "A title no catalogue has")]


def test_the_lecture_plan_is_extracted_view_by_view_with_views_added_later(tmp_path):
    plan = {"format": "attention-lab-lecture", "version": 1, "views": [
        {"section": "Tutorial part 9", "title": "A title", "page": "explorer", "params": {}, "note": "A note."},
        {"section": "Tutorial part 9", "title": "Another title", "page": "masks", "params": {"masks_tab": "Cost"},
         "note": ""}]}
    root = project(tmp_path, {"assets/lecture_plan.json": json.dumps(plan, ensure_ascii=False, indent=1)})
    gaps = catalogues.missing("zh", root)                   # each section once, no empty note
    assert [m for _, m in gaps] == ["Tutorial part 9", "A title", "A note.", "Another title"]
    lines = (root / "assets" / "lecture_plan.json").read_text().splitlines()
    for where, message in gaps:
        path, line = where.split(":")
        assert path == "assets/lecture_plan.json" and json.dumps(message) in lines[int(line) - 1]


def test_translations_keep_the_placeholders(zh):
    bad = []
    for m in zh:
        if not m.id:
            continue
        msgids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        want = sorted(PLACEHOLDER.findall(msgids[-1]))
        bad += [(msgids[0], s) for s in strings if sorted(PLACEHOLDER.findall(s)) != want]
    assert bad == []


def unrendered_bold(text: str) -> bool:
    """Whether CommonMark leaves a ** of `text` as literal asterisks, its {placeholders} filled with a word."""
    return "**" in MarkdownIt("commonmark").render(PLACEHOLDER.sub("x", text))


def test_bold_renders_in_every_message_of_both_languages(zh):
    assert unrendered_bold("**答对了：**{truth}。") and not unrendered_bold("**答对了**：{truth}。")
    bad = []
    for m in zh:
        texts = [*(m.id if isinstance(m.id, tuple) else (m.id,)),
                 *(m.string if isinstance(m.string, tuple) else (m.string,))]
        bad += [t for t in texts if t and "**" in t and unrendered_bold(t)]
    assert bad == []


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
