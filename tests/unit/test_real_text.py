"""The real-text corpus: parsing and cleaning on a tiny fake package tree, the stable split, the missing-package
message, the cache, and one check on the installed Debian packages (installed by .ci/run)."""
import gzip
import hashlib
import os

import pytest

from model.data import real_text, real_text_sources
from model.data.real_text import Document

WORDNET_HEADER = "  1 This software and database is being provided to you, the LICENSEE, by  \n"
NOUN = ("00406612 04 n 02 fold 0 folding 0 005 @ 00404403 n 0000 | the act of folding; "
        '"he gave the napkins a double fold"  \n')
ADJ = ("00001740 00 a 01 able(a) 0 005 = 05207437 n 0000 | (usually followed by `to') having the means; "
       '"able to swim"\n')
VERB = "00001740 29 v 01 take_a_breath 0 005 @ 00001740 v 0000 | draw air into the lungs  \n"
COOKIE = ("A bore is someone who persists in holding\nhis own views.\n%\n"
          "\x1b[33mColours\x1b[m and\ttabs   are cleaned.\n\nSecond paragraph.\n%\n"
          "A BORE is someone who persists in holding his own views.\n%\n"
          "  /\\_/\\\n ( o.o )\n  > ^ <\n%\n")
CHINESE = "\x1b[32m《感遇》\x1b[m\n兰叶春葳蕤，\n桂华秋皎洁。\n%\n"
# what mod2imp prints for a SWORD Bible module: a heading, an introduction (chapter 0), then verses in OSIS
BIBLE_IMP = ("$$$[ Module Heading ]\n\n$$$Genesis 0:0\n<title>Preface</title> About this translation.\n"
             "$$$Genesis 1:1\n<w lemma=\"strong:H7225\">In</w> <w>the</w> <w>beginning</w>, <w>God</w>"
             "<note placement=\"foot\"><reference>1:1 </reference>The Hebrew word is Elohim.</note>"
             " <w>created</w> <w>the</w> <w>earth</w>.\n"
             "$$$Genesis 1:2\n<title type=\"x-heading\">Light</title>God said, “ <w>Let</w> there be light,” "
             "and there was light. God’s light.\n"
             "$$$Genesis 2:1\nThe heavens were finished.\n")
JARGON = ("The Jargon File, front matter.\n\n   :bar: /bar/, n.\n\n   1. The second metasyntactic variable, "
          "after {foo}\n   and before baz.\n\n   :cruft: n.\n\n   Excess, superfluous junk.\n")
HANDBOOK = ('<html><body><div class="para">APT is the <span>Advanced Package Tool</span>, used widely.</div>'
            '<div class="para">Run it like this: <pre class="screen">apt update</pre> and wait a moment.</div>'
            '<div class="para">Too short.</div></body></html>')


def fake_root(tmp_path, skip=()):
    """A root holding the files the packages install, minus the packages named in skip."""
    if "wordnet-base" not in skip:
        wn = tmp_path / "usr/share/wordnet"
        wn.mkdir(parents=True)
        (wn / "data.noun").write_text(WORDNET_HEADER + NOUN, encoding="latin-1")
        (wn / "data.adj").write_text(WORDNET_HEADER + ADJ, encoding="latin-1")
        (wn / "data.verb").write_text(VERB, encoding="latin-1")
        (wn / "data.adv").write_text(WORDNET_HEADER, encoding="latin-1")
    fo = tmp_path / "usr/share/games/fortunes"
    fo.mkdir(parents=True)
    if "fortunes" not in skip:
        (fo / "cookie").write_text(COOKIE)
        (fo / "cookie.dat").write_bytes(b"\x00\x02binary index")
        (fo / "cookie.u8").symlink_to("cookie")
        (fo / "fortunes").write_text("Short and sweet.\n%\n")
        (fo / "ascii-art").write_text("Letters drawn as a picture of many words here\n%\n")
    if "fortunes-zh" not in skip:
        (fo / "chinese").write_text(CHINESE)
        (fo / "tang300").write_text("床前明月光\n%\n")
        (fo / "song100").write_text("明月几时有\n%\n")
    files = {"sword-text-web": (real_text_sources.BIBLE_CONF, b"[engWEB2015eb]\n"),
             "jargon-text": (real_text_sources.JARGON_FILE, gzip.compress(JARGON.encode())),
             "debian-handbook": (real_text_sources.HANDBOOK_DIR + "/apt.html", HANDBOOK.encode())}
    for package, (path, data) in files.items():
        if package not in skip:
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_bytes(data)
    return tmp_path


@pytest.fixture(autouse=True)
def fake_bible_export(monkeypatch):
    """mod2imp reads the SWORD module the package installs; the fake tree's Bible is the text above."""
    monkeypatch.setattr(real_text_sources, "export_bible", lambda root: BIBLE_IMP)


def test_documents_are_parsed_cleaned_and_deduplicated(tmp_path):
    docs = real_text.assemble(fake_root(tmp_path))
    assert docs == [
        Document("fold, folding: the act of folding. He gave the napkins a double fold.", "wordnet", "en"),
        Document("take a breath: draw air into the lungs.", "wordnet", "en"),
        Document("able: (usually followed by `to') having the means. Able to swim.", "wordnet", "en"),
        Document("《感遇》\n兰叶春葳蕤，\n桂华秋皎洁。", "fortunes-zh", "zh"),
        Document("A bore is someone who persists in holding his own views.", "fortunes", "en"),
        Document("Colours and tabs are cleaned.\nSecond paragraph.", "fortunes", "en"),
        Document("Short and sweet.", "fortunes", "en"),
        Document("明月几时有", "fortunes-zh", "zh"),
        Document("床前明月光", "fortunes-zh", "zh"),
        Document("In the beginning, God created the earth. God said, \"Let there be light,\" and there was light. "
                 "God's light.", "bible", "en"),
        Document("The heavens were finished.", "bible", "en"),
        Document("bar: 1. The second metasyntactic variable, after foo and before baz.", "jargon", "en"),
        Document("cruft: Excess, superfluous junk.", "jargon", "en"),
        Document("APT is the Advanced Package Tool, used widely.\nRun it like this: and wait a moment.",
                 "handbook", "en"),
    ]


def test_wrapped_lines_are_joined_and_verse_keeps_its_breaks():
    assert real_text.unwrap("one\ntwo\n\nthree") == "one two\nthree"
    prose = "很" * 30
    assert real_text.unwrap(f"{prose}\n长句。\n短句，\n诗。") == f"{prose}长句。\n短句，\n诗。"
    assert real_text.unwrap("中文\nand English") == "中文\nand English"


def test_character_pictures_are_recognised():
    assert real_text.looks_like_art("  /\\_/\\\n ( o.o )\n  > ^ <")
    assert not real_text.looks_like_art("A bore is someone (who) persists -- in holding!")


def test_split_is_by_hash_stable_and_disjoint():
    docs = [Document(f"document number {i}", "fortunes", "en") for i in range(400)]
    corpus = real_text.split(docs, percent=10)
    expected = {d.text for d in docs
                if int(hashlib.sha256(d.text.encode()).hexdigest()[:16], 16) % 100 < 10}
    assert {d.text for d in corpus.heldout} == expected
    assert len(corpus.train) + len(corpus.heldout) == 400
    assert 20 <= len(corpus.heldout) <= 60
    assert real_text.split(list(reversed(docs)), percent=10).heldout == list(reversed(corpus.heldout))


@pytest.mark.parametrize("package", ["wordnet-base", "fortunes", "fortunes-zh", "sword-text-web", "jargon-text",
                                     "debian-handbook"])
def test_missing_package_names_the_install_command(tmp_path, package):
    with pytest.raises(real_text.MissingPackage, match=f"run `apt-get install -y {package}`"):
        real_text.assemble(fake_root(tmp_path, skip=(package,)))


def test_cache_is_written_under_the_env_directory_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTENTION_LAB_CACHE", str(tmp_path / "cache"))
    root = fake_root(tmp_path / "root")
    first = real_text.load(root)
    cached = list((tmp_path / "cache").glob("real_text-*.jsonl"))
    assert len(cached) == 1
    assert real_text.load(root) == first
    (root / "usr/share/games/fortunes/fortunes").write_text("A new fortune, longer than before.\n%\n")
    assert any("A new fortune" in d.text for d in real_text.load(root).train + real_text.load(root).heldout)


def test_installed_packages_give_the_documented_corpus(monkeypatch):
    # the packages are installed by .ci/run; a missing one fails with the apt-get command to run
    monkeypatch.undo()                                  # the real mod2imp, not the fake tree's Bible
    corpus = real_text.load("/", cache=False)
    docs = corpus.train + corpus.heldout
    by_source = {s: [d for d in docs if d.source == s]
                 for s in ("wordnet", "fortunes", "fortunes-zh", "bible", "jargon", "handbook")}
    assert len(by_source["wordnet"]) > 100_000
    assert len(by_source["fortunes"]) > 10_000
    assert len(by_source["fortunes-zh"]) > 4_000
    assert len(by_source["bible"]) > 1_300                 # 1,189 chapters and the deuterocanon's
    assert len(by_source["jargon"]) > 2_000
    assert len(by_source["handbook"]) > 500
    assert any(d.text.startswith("In the beginning, God created the heavens and the earth.")
               for d in by_source["bible"])
    assert not any("<" in d.text and "lemma=" in d.text for d in by_source["bible"])
    assert 0.04 < len(corpus.heldout) / len(docs) < 0.06
    assert any("The patient is respiring." in d.text for d in by_source["wordnet"])
    assert not any("\x1b" in d.text or "\ufffd" in d.text for d in docs)
    assert len({" ".join(d.text.lower().split()) for d in docs}) == len(docs)
    assert os.path.exists("/usr/share/wordnet/data.noun")
